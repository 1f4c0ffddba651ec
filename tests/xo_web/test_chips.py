"""Chips through the local server against xo-devnet and a real MQTT broker: balances, channels, a staked match.

The server reads a player's chips and channels as ``chips balance`` and ``chips list``
do, opens and joins channels as ``chips open`` and ``chips join`` do, and plays a
staked match for the page with ``chips play``'s match loop: the page's moves go in by
``POST /api/chips/move``, and every state signed or accepted comes out on the event
stream at once (``chips`` events), before any block.
A joiner challenges an opener who never moves with the chain's own turn 0, as
``chips challenge`` does, and the opener's challenge at turn 0 is refused with its reason.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from client_core.broker import BrokerAddress
from tests.xo_web.local_server import EventReader, LocalServer
from xo_devnet.genesis import OPENING_CHIPS
from xo_devnet.spawn import DevnetProcess

MATCH_SECONDS = 60.0


@pytest.fixture(scope="module")
def chips_server(devnet: DevnetProcess, broker: BrokerAddress) -> Iterator[LocalServer]:
    with LocalServer(devnet.rest_url, devnet.key_dir, broker=broker) as running:
        yield running


def chips_of(server: LocalServer, player: str) -> dict:
    return server.get_json(f"/api/chips?player={player}")


def channel_named(view: dict, shown: str) -> dict:
    [found] = [channel for channel in view["channels"] if channel["shown"] == shown]
    return found


def opened(server: LocalServer, name: str, **terms: object) -> str:
    fields = {"game": "xo", "stake": 10, "deposit": 50, "rounds": 1, "challenge": 60} | terms
    answer = server.post_chips("open", player="alice", name=name, opponent="bob", **fields)
    assert answer.status == 200, answer.body
    return answer.json()["channel"]


def test_the_balance_and_channels_follow_open_and_join(chips_server):
    before = chips_of(chips_server, "alice")
    assert before["balance"] <= OPENING_CHIPS
    assert abs(before["now"] - time.time()) < 5
    ident = opened(chips_server, "lists", game="rps", stake=5, deposit=20, rounds=3)

    alice = chips_of(chips_server, "alice")
    assert alice["balance"] == before["balance"] - 20
    channel = channel_named(alice, "lists")
    assert channel["id"] == ident
    assert (channel["status"], channel["waiting_for_opponent"], channel["open_to_me"]) == ("funding", True, False)
    assert (channel["game"], channel["stake"], channel["deposits"], channel["rounds"]) == ("rps", 5, [20, 20], 3)
    assert channel["opponent"]["name"] == "bob"

    bob_before = chips_of(chips_server, "bob")
    listed = [c for c in bob_before["channels"] if c["id"] == ident]
    assert listed[0]["open_to_me"] is True
    assert listed[0]["challenge_seconds"] == 60 and "which is short" in listed[0]["challenge_note"]
    assert listed[0]["shown"] == ident[:8]  # bob's store has never heard the name alice gave it
    assert bob_before["channels"][0]["id"] == ident  # what waits for the player comes first

    joined = chips_server.post_chips("join", player="bob", channel=ident)
    assert joined.status == 200, joined.body
    assert "A challenge must be answered within 60 s. Note: a challenge in this channel" in joined.json()["message"]
    bob = chips_of(chips_server, "bob")
    assert bob["balance"] == bob_before["balance"] - 20
    mine = next(c for c in bob["channels"] if c["id"] == ident)
    assert (mine["status"], mine["open_to_me"], mine["held"]) == ("running", False, 40)
    assert mine["state"]["turn"] == 0 and mine["state"]["balances"] == [20, 20]
    assert mine["state"]["next_is_mine"] is False  # the opener moves first

    again = chips_server.post_chips("join", player="bob", channel=ident)
    assert again.status == 409
    assert "not waiting for your deposit; nothing was submitted" in again.json()["error"]["message"]


def test_hostile_names_and_bad_requests_are_refused_or_shown_as_text(chips_server):
    opened(chips_server, "<img src=x onerror=alert(1)>", deposit=10, stake=10)
    shown = [c["shown"] for c in chips_of(chips_server, "alice")["channels"]]
    assert "<img src=x onerror=alert(1)>" in shown  # text, which the page sets as text only
    bidi = chips_server.post_chips("open", player="alice", name="evil\u202e", opponent="bob", game="xo", stake=1,
                                   deposit=1, rounds=1, challenge=60)  # fmt: skip
    assert bidi.status == 400
    assert bidi.json()["error"]["message"] == "a channel name is 1 to 64 printable characters, not 'evil\\u202e'"
    for fields, said in (
        ({"name": "x", "opponent": "bob", "game": "chess", "stake": 1, "deposit": 1, "rounds": 1, "challenge": 60},
         '"game" must be one of xo, rps'),
        ({"name": "x", "opponent": "bob", "game": "xo", "stake": 0, "deposit": 1, "rounds": 1, "challenge": 60},
         '"stake" must be a whole number from 1'),
        ({"name": "", "opponent": "bob", "game": "xo", "stake": 1, "deposit": 1, "rounds": 1, "challenge": 60},
         '"name" must be the channel'),
    ):  # fmt: skip
        answer = chips_server.post_chips("open", player="alice", **fields)
        assert answer.status == 400 and said in answer.json()["error"]["message"], answer.body
    refused = chips_server.post_chips(
        "open", player="alice", name="far", opponent="../../etc/bob", game="xo", stake=1, deposit=1, rounds=1,
        challenge=60,
    )  # fmt: skip
    assert refused.status == 409
    assert "is neither a public key nor the name of a key" in refused.json()["error"]["message"]
    low = chips_server.post_chips("open", player="alice", name="low", opponent="bob", game="xo", stake=10, deposit=5,
                                  rounds=1, challenge=60)  # fmt: skip
    assert low.status == 409 and "must cover the stake" in low.json()["error"]["message"]
    assert chips_server.post_chips("join", player="bob", channel="00" * 31).status == 400
    assert chips_server.post_chips("move", player="bob", channel="00" * 32, space=1).status == 409
    unsigned = chips_server.request("POST", "/api/chips/open", headers={"Content-Type": "application/json"}, body=b"{}")
    assert unsigned.status == 403  # no token, no origin: the same guard as every other route


class ChipsEvents:
    """The ``chips`` events of one stream, per player."""

    def __init__(self, events: EventReader) -> None:
        self.events = events

    def until(self, player: str, test, seconds: float = MATCH_SECONDS) -> dict:
        ends = time.monotonic() + seconds
        while time.monotonic() < ends:
            _, data = self.events.next("chips")
            if data["player"] == player and test(data):
                return data
        raise AssertionError(f"no such chips event for {player[:8]}")


def test_a_staked_xo_match_played_through_the_server_pays_the_winner_on_chain(chips_server, devnet):
    keys = {name: (devnet.key_dir / f"{name}.pub").read_text().strip() for name in ("alice", "bob")}
    before = {name: chips_of(chips_server, name)["balance"] for name in keys}
    ident = opened(chips_server, "match")
    assert chips_server.post_chips("join", player="bob", channel=ident).status == 200
    with EventReader(chips_server) as stream:
        events = ChipsEvents(stream)
        for name in keys:
            started = chips_server.post_chips("play", player=name, channel=ident)
            assert started.status == 200, started.body
        assert chips_server.post_chips("play", player="alice", channel=ident).json()["line"] == "already playing"
        # alice (X) takes the top row; bob answers in the middle row; each move reaches the other off chain
        for mover, space in (("alice", 1), ("bob", 4), ("alice", 2), ("bob", 5), ("alice", 3)):
            asked = events.until(keys[mover], lambda e: e["wanted"] is not None and e["wanted"]["kind"] == "xo")
            if mover == "bob" and space == 4:
                taken = chips_server.post_chips("move", player="bob", channel=ident, space=1)
                assert taken.status == 409 and "space 1 is taken" in taken.json()["error"]["message"]
            assert asked["state"]["board"][space - 1] == "-"
            moved = chips_server.post_chips("move", player=mover, channel=ident, space=space)
            assert moved.status == 202, moved.body
            other = "bob" if mover == "alice" else "alice"
            seen = events.until(keys[other], lambda e, s=space: e["state"] and e["state"]["board"][s - 1] != "-")
            assert seen["state"]["board"][space - 1] == ("X" if mover == "alice" else "O")
        not_yours = chips_server.post_chips("move", player="bob", channel=ident, space=9)
        assert not_yours.status == 409
        ended = events.until(keys["alice"], lambda e: not e["playing"])
        assert ended["line"] == "the channel is concluded", ended
        assert ended["state"]["balances"] == [60, 40]
    alice, bob = chips_of(chips_server, "alice"), chips_of(chips_server, "bob")
    assert alice["balance"] == before["alice"] + 10 and bob["balance"] == before["bob"] - 10
    closed = next(c for c in alice["channels"] if c["id"] == ident)
    assert (closed["status"], closed["payout"]) == ("closed", [60, 40])


def test_the_joiner_holds_an_opener_who_never_moves_to_turn_zero_and_both_deposits_come_back(chips_server):
    before = {name: chips_of(chips_server, name)["balance"] for name in ("alice", "bob")}
    ident = opened(chips_server, "never", stake=10, deposit=25, challenge=1)
    assert chips_server.post_chips("join", player="bob", channel=ident).status == 200

    # the first move is alice's: a challenge would only hold her to make it (``chips challenge`` refuses her too)
    hers = chips_server.post_chips("challenge", player="alice", channel=ident)
    assert hers.status == 409
    assert hers.json()["error"]["message"] == (
        f"the first move in '{ident[:8]}' is yours: play it; a challenge now would only hold you to make it; "
        "nothing was submitted"
    )
    # bob holds her to the chain's own turn 0, which nobody has signed
    his = chips_server.post_chips("challenge", player="bob", channel=ident)
    assert his.status == 200, his.body
    assert his.json()["message"] == "You challenged your opponent at turn 0."
    challenged = channel_named(chips_of(chips_server, "bob"), ident[:8])
    assert challenged["challenge"]["by_me"] is True and challenged["chain_turn"] == 0
    again = chips_server.post_chips("challenge", player="bob", channel=ident)
    assert again.status == 409 and "challenged already" in again.json()["error"]["message"]

    # alice never answers: once the chain's clock passes the deadline, bob's finalize pays both deposits back
    limit = time.monotonic() + 30
    while (finalized := chips_server.post_chips("finalize", player="bob", channel=ident)).status != 200:
        assert finalized.status == 409, finalized.body
        assert time.monotonic() < limit, finalized.body
        time.sleep(0.5)
    closed = channel_named(chips_of(chips_server, "bob"), ident[:8])
    assert (closed["status"], closed["payout"]) == ("closed", [25, 25])
    assert {name: chips_of(chips_server, name)["balance"] for name in ("alice", "bob")} == before
