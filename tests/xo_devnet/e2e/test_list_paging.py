"""``xo list`` with more games than one REST page: the client must follow ``paging.next``."""

import urllib.request

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch, make_batch_list
from xo_core.signing import Signer
from xo_devnet.rest.paging import DEFAULT_LIMIT
from xo_tp.family import NAMESPACE

GAMES = DEFAULT_LIMIT + 7
CHUNK = 250


def test_xo_list_shows_games_beyond_the_first_page(start_devnet, xo_for, fetch_json):
    devnet = start_devnet()
    signer = Signer.generate()
    names = [f"many-{n:04d}" for n in range(GAMES)]
    batches = [make_batch(signer, [make_xo_transaction(signer, name, "create")]) for name in names]
    for first in range(0, GAMES, CHUNK):
        chunk = batches[first : first + CHUNK]
        request = urllib.request.Request(
            f"{devnet.rest_url}/batches",
            data=make_batch_list(chunk),
            headers={"Content-Type": "application/octet-stream"},
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            assert response.status == 202
    for first in range(0, GAMES, CHUNK):
        ids = [batch.header_signature for batch in batches[first : first + CHUNK]]
        statuses = fetch_json(f"{devnet.rest_url}/batch_statuses?wait=120", ids)["data"]
        assert {status["status"] for status in statuses} == {"COMMITTED"}

    first_page = fetch_json(f"{devnet.rest_url}/state?address={NAMESPACE}")
    assert len(first_page["data"]) == DEFAULT_LIMIT
    assert "next" in first_page["paging"]

    listed = xo_for(devnet.rest_url, devnet.key_dir).games()
    assert sorted(game["name"] for game in listed) == names
