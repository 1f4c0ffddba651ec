"""Stopping xo-devnet and starting it again on the same data dir: games, chain and keys are all still there."""

import urllib.request

from xo_core.batches import make_batch, make_batch_list, make_xo_transaction
from xo_core.protobuf.batch_pb2 import Batch
from xo_core.signing import Signer


def post(url: str, batch: Batch) -> None:
    headers = {"Content-Type": "application/octet-stream"}
    request = urllib.request.Request(f"{url}/batches", data=make_batch_list([batch]), headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 202


def test_restarting_on_the_same_data_dir_keeps_games_chain_and_keys(start_devnet, xo_for, fetch_json, tmp_path):
    data_dir, key_dir = tmp_path / "chain", tmp_path / "keys"
    first = start_devnet("--data-dir", str(data_dir), key_dir=key_dir)
    xo = xo_for(first.rest_url, key_dir)
    assert xo("create", "kept").returncode == 0
    assert xo("take", "kept", "5").returncode == 0
    assert xo("take", "kept", "1", username="bob").returncode == 0
    head_before = fetch_json(f"{first.rest_url}/blocks?limit=1")["head"]
    assert first.stop() == 0

    second = start_devnet("--data-dir", str(data_dir), key_dir=key_dir)
    assert second.ready["keys"] == first.ready["keys"]
    assert fetch_json(f"{second.rest_url}/blocks?limit=1")["head"] == head_before
    xo = xo_for(second.rest_url, key_dir)
    (game,) = [game for game in xo.games() if game["name"] == "kept"]
    assert (game["board"], game["state"]) == ("O---X----", "P1-NEXT")
    assert (game["player1"], game["player2"]) == (first.ready["keys"]["alice"], first.ready["keys"]["bob"])
    assert xo("take", "kept", "9").returncode == 0
    (game,) = [game for game in xo.games() if game["name"] == "kept"]
    assert game["board"] == "O---X---X"


def test_an_ephemeral_devnet_starts_empty_every_time(start_devnet, fetch_json):
    devnet = start_devnet("--ephemeral")
    assert devnet.ready["data_dir"] is None
    blocks = fetch_json(f"{devnet.rest_url}/blocks")["data"]
    assert [block["header"]["block_num"] for block in blocks] == ["0"]


def test_batches_accepted_just_before_a_stop_are_committed_not_dropped(start_devnet, fetch_json, tmp_path):
    data_dir = tmp_path / "chain"
    first = start_devnet("--data-dir", str(data_dir), "--block-interval", "3")
    signer = Signer.generate()
    early, late = (make_batch(signer, [make_xo_transaction(signer, name, "create")]) for name in ("early", "late"))
    post(first.rest_url, early)
    assert fetch_json(f"{first.rest_url}/batch_statuses?id={early.header_signature}&wait=30")["data"][0]["status"] == (
        "COMMITTED"
    )
    post(first.rest_url, late)
    assert fetch_json(f"{first.rest_url}/batch_statuses?id={late.header_signature}")["data"][0]["status"] == "PENDING"
    assert first.stop() == 0

    second = start_devnet("--data-dir", str(data_dir))
    statuses = fetch_json(f"{second.rest_url}/batch_statuses?id={early.header_signature},{late.header_signature}")
    assert [status["status"] for status in statuses["data"]] == ["COMMITTED", "COMMITTED"]
