"""rps through the local server against xo-devnet (with rps-tp): ops, throws kept secret in the vault, reveals.

A throw from the page is ``rps throw``'s: the vault first, then the commitment; the
server reveals it by itself once the chain holds both commitments, and the pages
see every step on the event stream. Refusals come back in the rps command's words.
"""

from __future__ import annotations

import json

import pytest

from client_core.rest import RestClient
from rps_client.games import read_game
from rps_client.vault import VAULT_DIR
from tests.xo_web.local_server import EventReader


def committed(answer) -> dict:
    assert answer.status == 200, answer.body
    document = answer.json()
    assert document["status"] == "COMMITTED"
    return document


class RpsChanges:
    """The rps changes of an event stream, one at a time (a block may hold several)."""

    def __init__(self, events: EventReader) -> None:
        self.events = events
        self.queued: list[dict] = []

    def next(self, wanted: str, name: str) -> dict:
        """The next change of kind ``wanted`` in game ``name``, skipping others."""
        for _ in range(100):
            while not self.queued:
                self.queued = list(self.events.next("block")[1]["rps_changes"])
            change = self.queued.pop(0)
            if change["change"] == wanted and change["name"] == name:
                return change
        raise AssertionError(f"no {wanted} in {name}")


def test_a_game_through_the_page_each_throw_secret_until_both_are_committed_then_revealed_by_the_server(server, devnet):
    keys = json.loads((devnet.ready_file).read_text())["keys"]
    created = committed(server.post_rps("alice", "create", "web-rps", points=1))
    assert created["message"] == "Committed create game 'web-rps' (first to 1 point, 5 min 0 s to act)"
    committed(server.post_rps("bob", "join", "web-rps"))
    committed(server.post_rps("bob", "ready", "web-rps"))
    with EventReader(server) as events:
        _, snapshot = events.next("snapshot")
        changes = RpsChanges(events)
        [game] = [game for game in snapshot["rps_games"] if game["name"] == "web-rps"]
        assert [player["name"] for player in game["players"]] == ["alice", "bob"]
        assert game["next"] == [{"player": keys["alice"], "action": "ready"}]
        committed(server.post_rps("alice", "ready", "web-rps"))
        assert changes.next("started", "web-rps")["round"] == 1

        thrown = committed(server.post_rps("alice", "throw", "web-rps", throw="rock"))
        assert thrown["message"].startswith("Committed your throw in round 1 of game 'web-rps': it stays secret")
        with RestClient(devnet.rest_url) as client:
            on_chain = read_game(client, "web-rps")
        assert on_chain.players[0].commitment is not None and on_chain.players[0].throw is None
        vault = devnet.key_dir / VAULT_DIR / f"{keys['alice']}.json"
        assert vault.stat().st_mode & 0o777 == 0o600
        assert [entry["throw"] for entry in json.loads(vault.read_text())["throws"]] == ["rock"]
        change = changes.next("committed", "web-rps")
        assert change["player_name"] == "alice" and change["throws"] is None
        assert "rock" not in json.dumps(change)  # nothing on the stream tells the throw before its reveal

        again = server.post_rps("alice", "throw", "web-rps", throw="paper")
        assert again.status == 409
        assert again.json()["error"]["message"].endswith("; nothing was submitted")

        committed(server.post_rps("bob", "throw", "web-rps", throw="scissors"))
        result = changes.next("round", "web-rps")  # both reveals made by the server, without being asked
        assert result["throws"] == ["rock", "scissors"]
        ended = changes.next("ended", "web-rps")
        assert ended["game"]["outcome_text"] == "alice won 1-0"
        assert ended["game"]["results"][0]["outcome"] == "won"
    assert json.loads(vault.read_text())["throws"] == []  # revealed: the salt is public, the entry gone


def test_rps_refusals_are_told_in_the_rps_commands_words(server):
    committed(server.post_rps("alice", "create", "web-rps-no", points=2, timeout=600))
    ready_early = server.post_rps("bob", "ready", "web-rps-no")
    assert ready_early.status == 409
    assert ready_early.json()["error"]["title"] == "Move Refused"
    throw_early = server.post_rps("alice", "throw", "web-rps-no", throw="rock").json()["error"]["message"]
    assert throw_early.endswith("nothing was submitted")
    reveal = server.post_rps("alice", "reveal", "web-rps-no").json()["error"]["message"]
    assert reveal == "game 'web-rps-no' has no round of yours to reveal; nothing was submitted"
    bad = server.post_rps("alice", "throw", "web-rps-no", throw="lizard")
    assert bad.status == 400 and bad.json()["error"]["message"] == '"throw" must be one of rock, paper, scissors'
    assert server.post_rps("alice", "fly", "web-rps-no").status == 400


def test_an_op_is_signed_for_the_moment_the_page_showed_so_a_stale_click_is_refused(server):
    """The page names the round and phase of the game it showed; the game moved on since: nothing is signed."""
    committed(server.post_rps("alice", "create", "web-rps-stale", points=1))
    shown = {"round": 0, "phase": "setup"}  # what bob's page showed before the game started
    committed(server.post_rps("bob", "join", "web-rps-stale", **shown))
    committed(server.post_rps("alice", "ready", "web-rps-stale", **shown))
    committed(server.post_rps("bob", "ready", "web-rps-stale", **shown))

    stale = server.post_rps("bob", "resign", "web-rps-stale", **shown)

    assert stale.status == 409
    assert stale.json()["error"]["message"] == (
        "game 'web-rps-stale' is at round 1, commit phase; this resign was signed for round 0, setup phase: an op"
        " counts only in the round and phase it was signed for (read the game again, then sign a new one);"
        " nothing was submitted"
    )
    resigned = committed(server.post_rps("bob", "resign", "web-rps-stale", round=1, phase="commit"))
    assert resigned["game"]["state"] == "CONCLUDED"


@pytest.mark.parametrize(
    ("moment", "message"),
    [
        ({"round": 1}, '"phase" must be the phase of the game shown: one of join, setup, commit, reveal, over'),
        ({"phase": "commit"}, '"round" must be the round of the game shown, a whole number from 0 to 100'),
        (
            {"round": "1", "phase": "commit"},
            '"round" must be the round of the game shown, a whole number from 0 to 100',
        ),
        (
            {"round": 1, "phase": "play"},
            '"phase" must be the phase of the game shown: one of join, setup, commit, reveal, over',
        ),
        ({"round": 0, "phase": "commit"}, "'round' must be from 1 to 100 in the commit phase, not 0"),
        ({"round": 2, "phase": "setup"}, "'round' must be 0 in the setup phase, not 2"),
    ],
)
def test_a_moment_that_is_not_one_is_a_bad_request(server, moment, message):
    answer = server.post_rps("alice", "resign", "web-rps-any", **moment)
    assert (answer.status, answer.json()["error"]["message"]) == (400, message)
