"""Standings with their tie-breaks: Swiss points, Buchholz, wins, seed; knockout rounds gone through, seed."""

from chips_tp.tournament import BLACK, BYE, DRAW, UNPLAYED, WHITE, Pairing
from chips_tp.tournament_ranking import Standing, knockout_standings, swiss_points, swiss_standings

ROUND_ONE = (Pairing(0, 1, WHITE), Pairing(2, 3, DRAW), Pairing(4, None, BYE))
ROUND_TWO = (Pairing(4, 0, BLACK), Pairing(2, 1, UNPLAYED), Pairing(3, None, BYE))


def test_points_count_a_win_and_a_bye_two_a_draw_one_an_unplayed_match_nothing():
    assert swiss_points(5, (ROUND_ONE, ROUND_TWO)) == [4, 0, 1, 3, 2]


def test_buchholz_breaks_a_tie_on_points():
    rounds = ((Pairing(0, 1, WHITE), Pairing(2, 3, WHITE)), (Pairing(0, 2, DRAW), Pairing(1, 3, WHITE)))
    # 0 and 2 both have 3 points; 0 met 1 (2 points) and 2 (3); 2 met 3 (0) and 0 (3).
    table = swiss_standings(4, rounds)
    assert table[:2] == [Standing(0, 3, 5, 1), Standing(2, 3, 3, 1)]


def test_the_seed_breaks_what_nothing_else_does():
    table = swiss_standings(2, ((Pairing(0, 1, DRAW),),))
    assert [line.player for line in table] == [0, 1]


def test_a_knockout_ranks_by_rounds_gone_through_then_seed():
    rounds = (
        (Pairing(0, None, BYE), Pairing(3, 4, BLACK), Pairing(1, None, BYE), Pairing(2, None, BYE)),
        (Pairing(0, 4, DRAW), Pairing(1, 2, WHITE)),
        (Pairing(1, 4, WHITE),),
    )
    assert [line.player for line in knockout_standings(5, rounds)] == [1, 4, 0, 2, 3]
