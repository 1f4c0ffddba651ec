"""The chips desk without a server: the page's view of a state, and a REST API that cannot answer.

No chain: a state is built by hand, and the REST API is a loopback port nothing listens on.
"""

from __future__ import annotations

import socket

import pytest

from chips_tp.channel_state import State
from chips_tp.xo_app import INITIAL
from client_core.keys import NO_NAMES
from xo_core.keyfiles import write_key_pair
from xo_core.signing import Signer
from xo_web.chips_desk import ChipsDesk, state_view
from xo_web.errors import ApiError


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_state_shows_the_players_own_balance_first():
    state = State(b"\0" * 32, 0, False, INITIAL, (30, 70))
    assert state_view(state, 0)["balances"] == [30, 70]
    assert state_view(state, 1)["balances"] == [70, 30]


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
