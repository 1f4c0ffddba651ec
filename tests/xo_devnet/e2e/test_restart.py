"""Stopping xo-devnet and starting it again on the same data dir: games, chain and keys are all still there."""

import json
import signal
import urllib.error
import urllib.request

import pytest

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch, make_batch_list
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
    first = start_devnet("--data-dir", str(data_dir), "--block-interval", "30")  # the stop does not wait it out
    signer = Signer.generate()
    early, late = (make_batch(signer, [make_xo_transaction(signer, name, "create")]) for name in ("early", "late"))
    post(first.rest_url, early)
    assert fetch_json(f"{first.rest_url}/batch_statuses?id={early.header_signature}&wait=30")["data"][0]["status"] == (
        "COMMITTED"
    )
    post(first.rest_url, late)
    assert fetch_json(f"{first.rest_url}/batch_statuses?id={late.header_signature}")["data"][0]["status"] == "PENDING"
    assert first.stop() == 0
    stopping = first.log_path.read_text().split("SIGTERM: stopping xo-devnet\n", 1)[1]
    assert stopping.startswith("waiting up to 10 s for 1 accepted batch to be decided\n")
    assert "pending" not in stopping, "decided before the stop, not left for the next start"

    second = start_devnet("--data-dir", str(data_dir))
    statuses = fetch_json(f"{second.rest_url}/batch_statuses?id={early.header_signature},{late.header_signature}")
    assert [status["status"] for status in statuses["data"]] == ["COMMITTED", "COMMITTED"]


def test_batches_answered_202_survive_a_kill_9_and_commit_once_after_a_restart(start_devnet, fetch_json, tmp_path):
    data_dir = tmp_path / "chain"
    first = start_devnet("--data-dir", str(data_dir), "--no-tp")
    signer = Signer.generate()
    batches = [make_batch(signer, [make_xo_transaction(signer, f"survivor{n}", "create")]) for n in range(5)]
    for batch in batches:
        post(first.rest_url, batch)
    ids = [batch.header_signature for batch in batches]
    statuses = fetch_json(f"{first.rest_url}/batch_statuses?id={','.join(ids)}")["data"]
    assert [status["status"] for status in statuses] == ["PENDING"] * len(batches)
    first.process.send_signal(signal.SIGKILL)
    assert first.process.wait(timeout=30) == -signal.SIGKILL

    second = start_devnet("--data-dir", str(data_dir))
    statuses = fetch_json(f"{second.rest_url}/batch_statuses?id={','.join(ids)}&wait=60")["data"]
    assert [status["status"] for status in statuses] == ["COMMITTED"] * len(batches)
    blocks = fetch_json(f"{second.rest_url}/blocks")["data"]
    families = [
        [batch["transactions"][0]["header"]["family_name"] for batch in block["batches"]] for block in blocks[:-1]
    ]
    assert all(block[0] == "block_info" and "block_info" not in block[1:] for block in families)
    on_chain = [batch["header_signature"] for block in blocks[:-1] for batch in block["batches"][1:]]
    assert sorted(on_chain) == sorted(ids)
    with pytest.raises(urllib.error.HTTPError) as refused:
        post(second.rest_url, batches[0])
    assert (refused.value.code, json.loads(refused.value.read())["error"]["code"]) == (400, 30)


def test_after_a_restart_the_banner_suggests_a_game_that_does_not_exist_yet(start_devnet, xo_for, tmp_path):
    data_dir, key_dir = tmp_path / "chain", tmp_path / "keys"
    first = start_devnet("--data-dir", str(data_dir), key_dir=key_dir)
    assert "  xo create game1 --username alice" in first.log_path.read_text()
    assert xo_for(first.rest_url, key_dir)("create", "game1").returncode == 0
    assert first.stop() == 0

    second = start_devnet("--data-dir", str(data_dir), key_dir=key_dir)
    banner = second.log_path.read_text().split("xo-devnet 1.0.0 is ready")[-1]
    assert "  xo create game2 --username alice" in banner
    assert "game1" not in banner
    assert xo_for(second.rest_url, key_dir)("create", "game2").returncode == 0


def test_reset_starts_from_an_empty_chain_and_keeps_the_keys(start_devnet, xo_for, fetch_json, tmp_path):
    data_dir, key_dir = tmp_path / "chain", tmp_path / "keys"
    first = start_devnet("--data-dir", str(data_dir), key_dir=key_dir)
    assert xo_for(first.rest_url, key_dir)("create", "game1").returncode == 0
    assert first.stop() == 0

    second = start_devnet("--data-dir", str(data_dir), "--reset", key_dir=key_dir)
    assert f"deleted the chain in {data_dir} (2 blocks): starting a new one" in second.log_path.read_text()
    assert fetch_json(f"{second.rest_url}/blocks")["data"][0]["header"]["block_num"] == "0"
    assert xo_for(second.rest_url, key_dir).games() == []
    assert second.ready["keys"] == first.ready["keys"]
