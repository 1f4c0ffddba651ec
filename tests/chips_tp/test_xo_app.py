"""The XO channel app, exhaustively: every reachable state, and every candidate next state one move away.

From the channel's first state (stake 1, balances 2 and 2) the search follows every
move the app allows, keyed by what the rule reads (position, marks, balances, whose
turn), so it covers every board of every game, rematches either way round, and matches
that end when a player can no longer cover the stake. From each state it tries every
candidate successor: each position with each board one mark away (or emptied, or
unchanged), at the balances the table gives, and the right position at every other
balance. The app must accept exactly what the specification's table allows; the
table is written out again here, from docs/chips-family.md, independently of the app.
"""

from collections import deque
from typing import NamedTuple

import pytest

from chips_tp.channel import Fixed, mover
from chips_tp.channel_state import State
from chips_tp.xo_app import (
    DRAW,
    INITIAL,
    O_PLAYING,
    PLAY_AGAIN_ME_FIRST,
    PLAY_AGAIN_ME_SECOND,
    POSITIONS,
    VICTORY,
    X_PLAYING,
    XoData,
    decode,
    transition_problem,
    valid_transition,
)  # fmt: skip
from xo_core.canonical import Malformed

CHANNEL = bytes(32)
STAKE = 1
TOTAL = 4
FIXED = Fixed(("02" + "11" * 32, "03" + "22" * 32), "xo", STAKE, (2, 2), 60, 0)
#: Squares 0..8 row by row; square i is the bit 2 ** (8 - i), as the specification says.
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
FULL = 0b111111111


class Key(NamedTuple):
    """What the rule reads of a state: its app data, its balances and whose move comes next."""

    data: XoData
    balances: tuple[int, int]
    parity: int


def bit(square: int) -> int:
    return 1 << (8 - square)


#: Each line's squares as one mask, so that a line is checked with one ``&`` (the search checks millions).
LINE_MASKS = [sum(bit(square) for square in line) for line in LINES]


def wins(marks: int) -> bool:
    return any(marks & mask == mask for mask in LINE_MASKS)


def paid(balances: tuple[int, int], to: int, amount: int) -> tuple[int, int] | None:
    """``balances`` with ``amount`` more for participant ``to`` from the other, None if they cannot pay."""
    result = list(balances)
    result[to] += amount
    result[1 - to] -= amount
    return None if result[1 - to] < 0 else (result[0], result[1])


def table(old: State) -> set[tuple[XoData, tuple[int, int]]]:
    """The successors the specification's table allows from ``old``: (app data, balances)."""
    data, balances, moved = old.app, old.balances, mover(old.turn + 1)
    covered = min(balances) >= STAKE
    allowed: set[tuple[XoData, tuple[int, int] | None]] = set()
    empty = [square for square in range(9) if not (data.crosses | data.noughts) & bit(square)]
    if data.position == PLAY_AGAIN_ME_SECOND and covered:
        allowed |= {(XoData(X_PLAYING, bit(square), 0), paid(balances, moved, STAKE)) for square in range(9)}
    elif data.position in (X_PLAYING, O_PLAYING):
        for square in empty:
            if data.position == X_PLAYING:
                crosses, noughts, placed = data.crosses, data.noughts | bit(square), data.noughts | bit(square)
                going_on = O_PLAYING
            else:
                crosses, noughts, placed = data.crosses | bit(square), data.noughts, data.crosses | bit(square)
                going_on = X_PLAYING
            if wins(placed):
                allowed.add((XoData(VICTORY, crosses, noughts), paid(balances, moved, 2 * STAKE)))
            elif crosses | noughts == FULL:
                allowed.add((XoData(DRAW, crosses, noughts), paid(balances, moved, STAKE)))
            else:
                allowed.add((XoData(going_on, crosses, noughts), paid(balances, moved, 2 * STAKE)))
    elif data.position in (VICTORY, DRAW) and covered:
        allowed.add((XoData(PLAY_AGAIN_ME_FIRST, 0, 0), balances))
    elif data.position == PLAY_AGAIN_ME_FIRST:
        allowed.add((XoData(PLAY_AGAIN_ME_SECOND, 0, 0), balances))
    return {(app, paid_out) for app, paid_out in allowed if paid_out is not None}


def boards_near(data: XoData) -> set[tuple[int, int]]:
    """The boards one mark away from ``data``'s, the same board and the empty board."""
    boards = {(data.crosses, data.noughts), (0, 0)}
    for square in range(9):
        if not (data.crosses | data.noughts) & bit(square):
            boards |= {(data.crosses | bit(square), data.noughts), (data.crosses, data.noughts | bit(square))}
    return boards


def candidates(old: State, legal: set[tuple[XoData, tuple[int, int]]]) -> set[tuple[XoData, tuple[int, int]]]:
    """Every candidate next state: each position and nearby board at the table's balances (or unchanged),
    and each allowed app data at every split of the total (``legal``: the table's successors of ``old``)."""
    balances = {paid_out for _, paid_out in legal} | {old.balances}
    found = {
        (XoData(position, crosses, noughts), paid_out)
        for position in POSITIONS
        for crosses, noughts in boards_near(old.app)
        for paid_out in balances
    }
    splits = {(first, TOTAL - first) for first in range(TOTAL + 1)}
    return found | {(app, split) for app, _ in legal for split in splits}


def explore() -> tuple[dict[Key, State], int]:
    """Every reachable state by what the rule reads, checking each one's candidates; and how many were checked."""
    first = State(CHANNEL, 0, False, INITIAL, (2, 2))
    seen = {Key(first.app, first.balances, 0): first}
    queue = deque([first])
    checked = 0
    while queue:
        old = queue.popleft()
        legal = table(old)
        for app, balances in candidates(old, legal):
            new = State(CHANNEL, old.turn + 1, False, app, balances)
            accepted = valid_transition(old, new, FIXED)
            checked += 1
            assert accepted == ((app, balances) in legal), (old, new, transition_problem(old, new, FIXED))
            if accepted:
                key = Key(app, balances, new.turn % 2)
                if key not in seen and new.turn < 40:
                    seen[key] = new
                    queue.append(new)
    return seen, checked


@pytest.fixture(scope="module")
def reachable() -> tuple[dict[Key, State], int]:
    return explore()


def test_the_app_accepts_exactly_the_table_from_every_reachable_state(reachable):
    states, checked = reachable
    assert len(states) > 10_000
    assert checked > 20 * len(states)


def test_every_position_is_reachable_including_both_rematch_positions_either_way_round(reachable):
    states, _ = reachable
    for position in POSITIONS:
        assert {key.parity for key in states if key.data.position == position} == {0, 1}, position
    again_second = [state for key, state in states.items() if key.data.position == PLAY_AGAIN_ME_SECOND]
    assert any(state.turn > 0 for state in again_second), "PlayAgainMeSecond reached from PlayAgainMeFirst"


def test_every_board_of_a_game_is_reachable(reachable):
    states, _ = reachable
    boards = {(key.data.crosses, key.data.noughts) for key in states}
    assert len(boards) == 5478  # every position of tic-tac-toe reachable in play, the empty board included


def test_a_match_ends_when_a_player_cannot_cover_the_stake(reachable):
    states, _ = reachable
    broke = [state for key, state in states.items() if key.data.position in (VICTORY, DRAW) and 0 in key.balances]
    assert broke
    for old in broke:
        rematch = State(CHANNEL, old.turn + 1, False, XoData(PLAY_AGAIN_ME_FIRST, 0, 0), old.balances)
        assert "cannot cover the stake" in (transition_problem(old, rematch, FIXED) or "")


def test_every_transition_conserves_the_total(reachable):
    states, _ = reachable
    assert {sum(key.balances) for key in states} == {TOTAL}


def test_the_loser_plays_x_in_the_rematch():
    x_wins = [(bit(0) | bit(1) | bit(2), bit(3) | bit(4))]  # X completes the top row at turn 5
    crosses, noughts = x_wins[0]
    victory = State(CHANNEL, 5, False, XoData(VICTORY, crosses, noughts), (3, 1))
    ask = State(CHANNEL, 6, False, XoData(PLAY_AGAIN_ME_FIRST, 0, 0), (3, 1))
    accept = State(CHANNEL, 7, False, XoData(PLAY_AGAIN_ME_SECOND, 0, 0), (3, 1))
    cross = State(CHANNEL, 8, False, XoData(X_PLAYING, bit(4), 0), (2, 2))
    assert [mover(state.turn) for state in (victory, ask, accept, cross)] == [0, 1, 0, 1]
    for old, new in [(victory, ask), (ask, accept), (accept, cross)]:
        assert valid_transition(old, new, FIXED), transition_problem(old, new, FIXED)


def test_the_reasons_name_the_move():
    first = State(CHANNEL, 0, False, INITIAL, (2, 2))
    victory = State(CHANNEL, 1, False, XoData(VICTORY, bit(0), 0), (3, 1))
    assert transition_problem(first, victory, FIXED) == (
        "PlayAgainMeSecond -> Victory is not a move: after PlayAgainMeSecond comes XPlaying"
    )
    odd = State(CHANNEL, 2, False, XoData("Resigned", 0, 0), (3, 1))
    assert transition_problem(victory, odd, FIXED) == (
        "Victory -> Resigned is not a move: after Victory comes PlayAgainMeFirst"
    )
    after_o = State(CHANNEL, 3, False, XoData(O_PLAYING, bit(0), bit(4)), (2, 2))
    assert transition_problem(after_o, odd._replace(turn=4), FIXED) == (
        "OPlaying -> Resigned is not a move: after OPlaying comes XPlaying or Victory or Draw"
    )
    two_crosses = State(CHANNEL, 1, False, XoData(X_PLAYING, bit(0) | bit(1), 0), (3, 1))
    assert transition_problem(first, two_crosses, FIXED) == (
        "PlayAgainMeSecond -> XPlaying places exactly one cross on an empty board"
    )
    greedy = State(CHANNEL, 1, False, XoData(X_PLAYING, bit(0), 0), (4, 0))
    assert transition_problem(first, greedy, FIXED) == (
        "PlayAgainMeSecond -> XPlaying by participant 0 makes the balances 3 and 1, not 4 and 0"
    )


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"position": PLAY_AGAIN_ME_FIRST, "crosses": bit(4), "noughts": 0}, "must have an empty board"),
        ({"position": X_PLAYING, "crosses": bit(4), "noughts": bit(4)}, "a space holds both marks"),
        ({"position": O_PLAYING, "crosses": bit(0) | bit(1), "noughts": 0}, "2 crosses and 0 noughts"),
    ],
)
def test_app_data_whose_marks_do_not_fit_its_position_is_malformed_saying_why(data, reason):
    with pytest.raises(Malformed, match=reason):
        decode(data)
