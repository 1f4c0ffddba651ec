"""The chips desk without a server: the page's view of a state, and a REST API that cannot answer.

No chain: a state or a channel is built by hand, and the REST API is a loopback port nothing listens on, or
the stand-in REST API holding the one setting a check reads.
"""

from __future__ import annotations

import pytest

from chips_client import moves
from chips_client.channels import nonce_of
from chips_client.narration import Story
from chips_client.store import ChannelTerms
from chips_tp.channel import Fixed, channel_id
from chips_tp.channel_state import State
from chips_tp.family import MIN_CHALLENGE_ADDRESS
from chips_tp.state import FUNDING, ChallengeRecord, Channel
from chips_tp.xo_app import INITIAL
from client_core.keys import NO_NAMES, KeyNames
from xo_core.keyfiles import write_key_pair
from xo_core.settings import encode_setting
from xo_core.signing import Signer
from xo_web.chips_desk import ChipsDesk, OpenRequest, channel_view, state_view
from xo_web.errors import ApiError


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


def test_a_join_while_the_rest_api_cannot_answer_is_a_502_in_words(tmp_path, closed_port):
    write_key_pair(tmp_path, "bob", Signer.generate())
    desk = ChipsDesk(f"http://127.0.0.1:{closed_port}", None, tmp_path, lambda: NO_NAMES, wait_seconds=1.0)
    with pytest.raises(ApiError) as raised:
        desk.join("bob", b"\1" * 32)
    assert raised.value.status == 502


def test_an_opponent_whose_key_is_no_curve_point_is_refused_before_anything_is_sent(tmp_path, closed_port):
    desk = ChipsDesk(f"http://127.0.0.1:{closed_port}", None, tmp_path, lambda: NO_NAMES, wait_seconds=1.0)
    (tmp_path / "ghost.pub").write_text("02" + "11" * 32 + "\n")
    for given in ("02" + "11" * 32, "ghost"):
        with pytest.raises(ApiError) as raised:
            desk.public_key(given)
        assert raised.value.status == 409
        assert "is not a point on secp256k1" in raised.value.message
    bob = Signer.generate()
    write_key_pair(tmp_path, "bob", bob)
    assert desk.public_key("bob") == desk.public_key(bob.public_key) == bob.public_key


def test_an_open_below_the_chains_challenge_floor_is_refused_before_anything_is_sent(fake, tmp_path):
    fake.state[MIN_CHALLENGE_ADDRESS] = encode_setting({"chips.min_challenge_seconds": "600"})
    alice, bob = Signer.generate(), Signer.generate()
    write_key_pair(tmp_path, "alice", alice)
    desk = ChipsDesk(fake.url, None, tmp_path, lambda: NO_NAMES, wait_seconds=1.0)
    with pytest.raises(ApiError) as raised:
        desk.open(OpenRequest("alice", "quick", bob.public_key, "xo", 1, 5, 1, 30))
    assert raised.value.status == 409
    assert "a challenge duration of 30 seconds is below this network's floor of 600" in raised.value.message
    assert fake.submitted == []


@pytest.mark.parametrize(("seconds", "short"), [(30, True), (599, True), (600, False), (3600, False)])
def test_the_page_is_told_when_a_channels_challenges_are_short(seconds, short):
    me, other = Signer.generate().public_key, Signer.generate().public_key
    fixed = Fixed((other, me), "xo", 1, (5, 5), seconds, 1)
    record = Channel(channel_id(fixed), fixed, FUNDING, (True, False), 5, 0, None, None, None)
    view = channel_view(record, me, NO_NAMES, None, None)
    assert view["challenge_seconds"] == seconds and view["open_to_me"] is True
    assert (view["challenge_note"] is not None) is short
    if short:
        assert view["challenge_note"].startswith(f"a challenge in this channel must be answered within {seconds} s")
