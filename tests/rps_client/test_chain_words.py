"""What `xo chain` says of an rps transaction: every op decoded with the family's own codec."""

import pytest

from client_core.blocks import ChainTransaction
from rps_client.chain_words import words
from rps_client.transactions import commit_moment, reveal_moment
from rps_tp.game import Moment, Settings
from rps_tp.ops import Claim, Commit, Create, Delete, Join, Ready, Resign, Reveal, Setup
from rps_tp.payload import encode_payload

LOBBY = Moment(0, "setup")
TWO = Settings(points=2, timeout=120)


def transaction(payload: bytes) -> ChainTransaction:
    return ChainTransaction("t" * 128, "rps", "2.0", "02" + "a" * 64, (), (), payload)


@pytest.mark.parametrize(
    ("op", "said"),
    [
        (Create("match"), "rps create match (first to 1 point, 5 min 0 s to act)"),
        (Create("match", join=False, settings=TWO), "rps create match (first to 2 points, 2 min 0 s to act, "
                                                    "without joining it)"),
        (Join("match", LOBBY), "rps join match"),
        (Setup("match", LOBBY, TWO), "rps setup match (first to 2 points, 2 min 0 s to act)"),
        (Ready("match", LOBBY, TWO), "rps ready match (first to 2 points, 2 min 0 s to act)"),
        (Commit("match", commit_moment(1), b"\x01" * 32), "rps commit match round 1"),
        (Reveal("match", reveal_moment(3), "rock", b"\x02" * 32), "rps reveal match round 3: rock"),
        (Claim("match", reveal_moment(2)), "rps claim match"),
        (Resign("match", commit_moment(2)), "rps resign match"),
        (Delete("match", LOBBY), "rps delete match"),
    ],
)  # fmt: skip
def test_each_op_in_words(op, said):
    assert words(transaction(encode_payload(op)), str) == said


def test_a_payload_the_codec_refuses_is_said_so_not_raised():
    assert words(transaction(b"\xa0"), str).startswith("rps: a payload its codec refuses (")
