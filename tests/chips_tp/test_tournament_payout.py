"""The split of the pool, exact to the chip: the odd chip to the winner, as the spec's example says."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chips_tp.channel import MAX_AMOUNT
from chips_tp.tournament_payout import split


def test_the_spec_example_pays_the_rounding_to_first_place():
    assert split(101, (60, 30, 10), 8) == [61, 30, 10]


def test_places_nobody_holds_go_to_the_winner():
    assert split(20, (50, 30, 20), 2) == [14, 6]


def test_a_split_needs_a_prize_and_a_player():
    with pytest.raises(ValueError):
        split(10, (), 3)


@st.composite
def prize_lists(draw: st.DrawFn) -> tuple[int, ...]:
    cuts = sorted(draw(st.lists(st.integers(0, 100), max_size=31)))
    bounds = [0, *cuts, 100]
    return tuple(b - a for a, b in itertools.pairwise(bounds))


@given(st.integers(0, MAX_AMOUNT), prize_lists(), st.integers(1, 256))
def test_the_split_pays_the_pool_exactly_and_never_less_than_a_share(pool, prizes, places):
    paid = split(pool, prizes, places)
    assert sum(paid) == pool
    assert len(paid) == min(len(prizes), places)
    for place, amount in enumerate(paid):
        assert amount >= pool * prizes[place] // 100
