"""The chips desk without a server: the page's view of a state, and a REST API that cannot answer.

No chain: a state is built by hand, and the REST API is a loopback port nothing listens on.
"""

from __future__ import annotations

import socket

import pytest

from chips_client import moves
from chips_client.channels import nonce_of
from chips_client.narration import Story
from chips_client.store import ChannelTerms
from chips_tp.channel import Fixed, channel_id
from chips_tp.channel_state import State
from chips_tp.state import ChallengeRecord, Channel
from chips_tp.xo_app import INITIAL
from client_core.keys import NO_NAMES, KeyNames
from xo_core.keyfiles import write_key_pair
from xo_core.signing import Signer
from xo_web.chips_desk import ChipsDesk, channel_view, state_view
from xo_web.errors import ApiError


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_state_shows_the_players_own_balance_first():
    state = State(b"\0" * 32, 0, False, INITIAL, (30, 70))
    assert state_view(state, 0)["balances"] == [30, 70]
    assert state_view(state, 1)["balances"] == [70, 30]


def test_the_page_gets_the_position_the_games_played_and_the_challenger_in_words():
    alice, bob = "02" + "a1" * 32, "03" + "b2" * 32
    names = KeyNames({alice: "alice", bob: "bob\u202e"})
    fixed = Fixed((alice, bob), "xo", 10, (50, 50), 60, nonce_of("duel", 3))
    states = [State(channel_id(fixed), 0, False, INITIAL, (50, 50))]
    for space in (1, 4, 2, 5, 3, None, None):
        states.append(moves.xo_next(states[-1], fixed, space))
    story = Story(fixed, 3, alice, names)
    story.follow(states)
    record = Channel(channel_id(fixed), fixed, "running", (True, True), 100, 7, None,
                     ChallengeRecord(2_000_000_000, bob), None)  # fmt: skip
    view = channel_view(record, alice, names, ChannelTerms("duel", fixed, 3), states[-1], story=story)
    assert view["state"]["words"] == "game 2 of 3, bob\\u202e (X) to move; you lead 1-0"
    assert view["played"] == ["game 1 of 3: you won"] and view["score"] == "you lead 1-0"
    assert view["challenge"] == {"deadline": 2_000_000_000, "by_me": False, "by": "bob\\u202e"}
    assert view["state"]["position"] == "PlayAgainMeSecond"  # the specification's name stays, for scripts


def test_a_join_while_the_rest_api_cannot_answer_is_a_502_in_words(tmp_path):
    write_key_pair(tmp_path, "bob", Signer.generate())
    desk = ChipsDesk(f"http://127.0.0.1:{closed_port()}", None, tmp_path, lambda: NO_NAMES, wait_seconds=1.0)
    with pytest.raises(ApiError) as raised:
        desk.join("bob", b"\1" * 32)
    assert raised.value.status == 502


def test_an_opponent_whose_key_is_no_curve_point_is_refused_before_anything_is_sent(tmp_path):
    desk = ChipsDesk(f"http://127.0.0.1:{closed_port()}", None, tmp_path, lambda: NO_NAMES, wait_seconds=1.0)
    (tmp_path / "ghost.pub").write_text("02" + "11" * 32 + "\n")
    for given in ("02" + "11" * 32, "ghost"):
        with pytest.raises(ApiError) as raised:
            desk.public_key(given)
        assert raised.value.status == 409
        assert "is not a point on secp256k1" in raised.value.message
    bob = Signer.generate()
    write_key_pair(tmp_path, "bob", bob)
    assert desk.public_key("bob") == desk.public_key(bob.public_key) == bob.public_key
