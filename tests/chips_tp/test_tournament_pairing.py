"""Seeding and pairing, by example and as properties: every player accounted for, no pair ever meeting twice."""

from hypothesis import given, settings
from hypothesis import strategies as st

from chips_tp.tournament import BLACK, BYE, DRAW, UNPLAYED, WHITE, Pairing
from chips_tp.tournament_pairing import (
    bracket_order,
    knockout_first_round,
    knockout_next_round,
    knockout_rounds,
    seed_order,
    swiss_round,
)  # fmt: skip
from chips_tp.tournament_ranking import knockout_winner, swiss_points

BOARD_RESULTS = (WHITE, BLACK, DRAW, UNPLAYED)


def test_the_bracket_puts_the_top_two_seeds_in_opposite_halves():
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(2) == [1, 2]
    assert knockout_rounds(2) == 1 and knockout_rounds(5) == 3 and knockout_rounds(8) == 3 and knockout_rounds(9) == 4


def test_a_field_of_five_gives_the_byes_to_the_top_three_seeds():
    assert knockout_first_round(5) == (
        Pairing(0, None, BYE),
        Pairing(3, 4),
        Pairing(1, None, BYE),
        Pairing(2, None, BYE),
    )


def test_a_drawn_knockout_match_sends_black_through_and_an_unplayed_one_nobody():
    assert knockout_winner(Pairing(0, 3, DRAW)) == 3
    assert knockout_winner(Pairing(0, 3, WHITE)) == 0
    assert knockout_winner(Pairing(0, 3, UNPLAYED)) is None
    assert knockout_next_round((Pairing(0, 7, UNPLAYED), Pairing(3, 4, WHITE))) == (Pairing(3, None, BYE),)


def test_swiss_round_one_pairs_adjacent_seeds_and_gives_the_bye_to_the_last():
    assert swiss_round(5, ()) == (Pairing(0, 1), Pairing(2, 3), Pairing(4, None, BYE))


def test_swiss_pairs_within_score_groups_and_the_bye_goes_to_the_lowest_without_one():
    first = (Pairing(0, 1, WHITE), Pairing(2, 3, BLACK), Pairing(4, None, BYE))
    # 0, 3 and 4 have 2 points; 1 and 2 none. 4 had the bye, so 2 (lowest without one) has it now.
    assert swiss_round(5, (first,)) == (Pairing(3, 0), Pairing(4, 1), Pairing(2, None, BYE))


def test_two_players_cannot_be_paired_twice():
    assert swiss_round(2, ((Pairing(0, 1, DRAW),),)) is None


def test_seeding_depends_on_the_draw_and_on_nothing_a_player_chooses_after_it():
    keys = [f"02{i:064x}" for i in range(1, 9)]
    order = seed_order("spring", "ab" * 64, keys)
    assert sorted(order) == sorted(keys)
    assert seed_order("spring", "ab" * 64, list(reversed(keys))) == order
    assert seed_order("spring", "cd" * 64, keys) != order


@settings(max_examples=60, deadline=None)
@given(st.data(), st.integers(2, 40), st.integers(1, 12))
def test_swiss_never_repeats_a_pair_and_seats_everyone_once(data, players, wanted):
    rounds: list[tuple[Pairing, ...]] = []
    met: set[frozenset[int]] = set()
    for number in range(wanted):
        pairings = swiss_round(players, rounds)
        pairable = number <= (players - 2) // 2 - (players % 2)  # Dirac: the unmet graph has a perfect matching
        if pairings is None:
            assert not pairable, f"round {number + 1} of {players} players found no pairing"
            break
        seated = [p for pairing in pairings for p in (pairing.white, pairing.black) if p is not None]
        assert sorted(seated) == list(range(players))
        byes = [p for p in pairings if p.black is None]
        assert len(byes) == players % 2 and all(p.result == BYE for p in byes)
        for pairing in pairings:
            if pairing.black is not None:
                pair = frozenset((pairing.white, pairing.black))
                assert pair not in met
                met.add(pair)
        rounds.append(_draw(data, pairings))
    points = swiss_points(players, rounds)
    assert sum(points) <= 2 * len(rounds) * ((players + 1) // 2)


def _draw(data: st.DataObject, pairings: tuple[Pairing, ...]) -> tuple[Pairing, ...]:
    return tuple(p if p.result else p._replace(result=data.draw(st.sampled_from(BOARD_RESULTS))) for p in pairings)


@settings(max_examples=80, deadline=None)
@given(st.data(), st.integers(2, 70))
def test_a_knockout_runs_its_rounds_each_round_holding_exactly_the_last_ones_winners(data, players):
    pairings = knockout_first_round(players)
    seated = [p for pairing in pairings for p in (pairing.white, pairing.black) if p is not None]
    assert sorted(seated) == list(range(players))
    for _round in range(knockout_rounds(players) - 1):
        pairings = _draw(data, pairings)
        through = [knockout_winner(p) for p in pairings]
        pairings = knockout_next_round(pairings)
        seated = [p for pairing in pairings for p in (pairing.white, pairing.black) if p is not None]
        assert sorted(seated) == sorted(p for p in through if p is not None)
    assert len(pairings) == 1
