"""The ledger as referee: two agents anchored on an ``xo-devnet`` record their moves as an XO game.

Each agent signs and commits its own moves before it sends them; the game on the chain is named
after the thread, and its board is the agents'. A move the other agent sends but never recorded
is answered with a problem-report; a move the ledger refuses is refused by the route, never sent.
"""

from __future__ import annotations

import pytest

pytest.importorskip("acapy_agent", reason="ACA-Py is not installed: pip install -e '.[aries]' (Python 3.12+)")

from client_core.keys import load_signer
from client_core.rest import RestClient
from client_core.submission import submit
from client_core.waiting import wait_for_batch
from tests.integration.devnet import running_devnet
from tests.xo_aries.agents import Agent, connect, running, start_agent
from xo_cli.aries_admin import AgentRefused
from xo_cli.main import main as xo
from xo_client.seat import read_game
from xo_client.transactions import make_xo_transaction


@pytest.fixture(scope="module")
def anchored(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("anchored")
    keys = home / "keys"
    for name in ("alice", "mallory", "eve"):
        assert xo(["keygen", name, "--key-dir", str(keys)]) == 0
    with running_devnet(home) as url:

        def anchored_agent(name: str) -> Agent:
            flags = ("--anchor-url", url, "--username", name, "--key-dir", str(keys))
            return start_agent(name, home / name, *flags, cheat=name == "mallory")

        with running(lambda: anchored_agent("alice"), lambda: anchored_agent("mallory")) as (alice, mallory):
            connect(alice, mallory)
            yield url, keys, alice, mallory


def chain_game(url: str, name: str):
    with RestClient(url) as client:
        return read_game(client, name)


def test_the_chains_board_is_the_agents_board_move_by_move(anchored):
    url, _, alice, mallory = anchored
    started = alice.admin.post("/tictactoe/start", {"connection_id": alice.connections["mallory"], "me": "X",
                                                     "move": "A1"})  # fmt: skip
    thread = started["thread_id"]
    assert chain_game(url, thread).board == "X--------"
    assert started["ledger"]["board"] == "X--------"
    for player, cell in ((mallory, "B2"), (alice, "A2"), (mallory, "C3"), (alice, "A3")):
        player.wait_for(thread, lambda game: game["state"] == "my-move")
        player.admin.post(f"/tictactoe/{thread}/move", {"cell": cell})
    ours = alice.wait_for(thread, lambda game: game["state"] == "done")
    theirs = mallory.wait_for(thread, lambda game: game["state"] == "done")
    game = chain_game(url, thread)
    assert game.board == ours["board"] == theirs["board"]
    assert (game.board, game.state) == ("X--XO-X-O", "P1-WIN")
    assert ours["winner"] == theirs["winner"] == "X"
    assert ours["problems"] == theirs["problems"] == []


def test_a_move_the_sender_never_recorded_is_answered_with_a_problem_report(anchored):
    _, _, alice, mallory = anchored
    thread = alice.admin.post("/tictactoe/start", {"connection_id": alice.connections["mallory"], "me": "X",
                                                    "move": "B2"})["thread_id"]  # fmt: skip
    mallory.wait_for(thread, lambda game: game["state"] == "my-move")
    body = {"connection_id": mallory.connections["alice"], "thread_id": thread, "kind": "move"}
    mallory.admin.post("/tictactoe-cheat/send", body | {"me": "O", "moves": ["X:B2", "O:A1"]})
    ours = alice.wait_for(thread, lambda game: len(game["problems"]) == 1, timeout=30)
    assert ours["problems"][0]["code"] == "bad-move"
    assert "the ledger does not record O:A1" in ours["problems"][0]["explanation"]
    assert (ours["state"], ours["moves"]) == ("their-move", ["X:B2"])


def test_a_move_the_ledger_refuses_is_refused_by_the_route_and_never_sent(anchored):
    url, keys, alice, mallory = anchored
    thread = alice.admin.post("/tictactoe/start", {"connection_id": alice.connections["mallory"], "me": "X",
                                                    "move": "C1"})["thread_id"]  # fmt: skip
    mallory.wait_for(thread, lambda game: game["state"] == "my-move")
    eve = load_signer(keys, "eve", "test")  # O's seat is free until O's first move: eve takes it on the chain
    with RestClient(url) as client:
        batch = submit(client, eve, [make_xo_transaction(eve, thread, "take", 1)])
        assert wait_for_batch(client, batch, 30).status == "COMMITTED"
    with pytest.raises(AgentRefused, match=r"^the ledger refused O:A2") as refused:
        mallory.admin.post(f"/tictactoe/{thread}/move", {"cell": "A2"})
    assert (refused.value.status, refused.value.code) == (409, "not-your-turn")
    assert mallory.game(thread)["moves"] == alice.game(thread)["moves"] == ["X:C1"]
