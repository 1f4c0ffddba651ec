"""``--auto-play``: an agent playing perfectly never loses to one playing at random, as X or as O."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("acapy_agent", reason="ACA-Py is not installed: pip install -e '.[aries]' (Python 3.12+)")

from tests.xo_aries.agents import connect, running, start_agent

GAMES = 6
CELLS = [f"{column}{row}" for row in "123" for column in "ABC"]


@pytest.fixture(scope="module")
def players(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("auto")
    with running(
        lambda: start_agent("perfect", home / "perfect", "--auto-play", "perfect"),
        lambda: start_agent("random", home / "random", "--auto-play", "random"),
    ) as (perfect, chancer):
        connect(perfect, chancer)
        yield perfect, chancer


def test_perfect_never_loses_to_random_over_several_games(players):
    perfect, chancer = players
    rng = random.Random(26)
    threads = []
    for number in range(GAMES):
        body = {"connection_id": chancer.connections["perfect"]}
        body |= {"me": "X", "move": rng.choice(CELLS)} if number % 2 == 0 else {"me": "O"}
        threads.append(chancer.admin.post("/tictactoe/start", body)["thread_id"])

    results = []
    for thread in threads:
        ours = perfect.wait_for(thread, lambda game: game["state"] == "done", timeout=60)
        theirs = chancer.wait_for(thread, lambda game: game["state"] == "done", timeout=60)
        assert ours["moves"] == theirs["moves"] and ours["winner"] == theirs["winner"]
        assert ours["winner"] in ("X", "O", "none") and not ours["abandoned"]
        results.append((ours["me"], ours["winner"]))
    assert {me for me, _ in results} == {"X", "O"}
    assert all(winner in (me, "none") for me, winner in results), results
