"""When a match is over (:func:`chips_client.moves.match_over`): an rps tournament match first to N stops as soon as
the rounds left cannot change who wins it; an ordinary channel plays every round its players agreed to."""

from __future__ import annotations

import pytest

from chips_client.moves import match_over
from chips_tp import rps_app
from chips_tp.channel import Fixed
from chips_tp.channel_state import State

KEYS = ("02" + "11" * 32, "03" + "22" * 32)


def fixed(deposits: tuple[int, int], rounds: int) -> Fixed:
    return Fixed(KEYS, "rps", 1, deposits, 60, 7 << 8 | rounds)


def after(round_number: int, balances: tuple[int, int]) -> State:
    """The settled state after round ``round_number``'s reveal, with these points."""
    return State(b"\x01" * 32, 4 * round_number, False, rps_app.INITIAL._replace(round=round_number), balances)


@pytest.mark.parametrize(
    ("first_to", "round_number", "balances", "over"),
    [
        (2, 1, (3, 1), False),  # 1-0 of a first to 2: the other can still win
        (2, 2, (4, 0), True),  # 2-0
        (2, 2, (3, 1), False),  # 1-0 and a tie: round 3 decides
        (3, 3, (5, 1), False),  # 2-0 and a tie: up 2 with 2 rounds left
        (3, 4, (5, 1), True),  # 3-1: round 5 cannot change the winner
        (3, 4, (3, 3), False),
        (3, 5, (3, 3), True),  # the 2N - 1 rounds are played: a draw
    ],
)  # fmt: skip
def test_an_rps_tournament_match_ends_once_its_winner_is_certain(first_to, round_number, balances, over):
    rounds = 2 * first_to - 1
    assert match_over(after(round_number, balances), fixed((0, 0), rounds), round_number, rounds) is over


def test_an_ordinary_channel_plays_every_round_agreed():
    assert not match_over(after(4, (5, 1)), fixed((3, 3), 5), 4, 5)
    assert match_over(after(5, (5, 1)), fixed((3, 3), 5), 5, 5)
