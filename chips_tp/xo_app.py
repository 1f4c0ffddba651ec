"""Tic-tac-toe in a channel, after the ForceMove game (seed 000): a pure ``valid_transition(old, new, fixed)``.

Positions: ``XPlaying`` (X has just moved), ``OPlaying`` (O has just moved),
``Victory`` (the mover has just won), ``Draw`` (X filled the board without a line),
``PlayAgainMeFirst`` (after a game, the loser, or O after a draw, asks to be X next)
and ``PlayAgainMeSecond`` (the other accepts; from here the next mover plays X). The
first state of every channel is ``PlayAgainMeSecond``, so the opener plays X first.

Stakes: every move assigns the round's stake to its mover (the first move takes it,
each later move swings it back, twice the stake), so a player who stops answering
forfeits; a draw returns both to where the game began; the rematch positions move
nothing, so either player may leave there for free. A game starts only if both
players can cover the stake. Lines are found with :mod:`xo_tp.bitboard` (the XO
family's masks, in ForceMove's bit order), never a copy of them.
"""

from typing import Final, NamedTuple

from chips_tp.channel import Fixed, mover, paid_problem
from chips_tp.channel_state import State
from xo_core import canonical
from xo_core.canonical import Malformed
from xo_tp.bitboard import FULL_BOARD, has_won

X_PLAYING: Final = "XPlaying"
O_PLAYING: Final = "OPlaying"
VICTORY: Final = "Victory"
DRAW: Final = "Draw"
PLAY_AGAIN_ME_FIRST: Final = "PlayAgainMeFirst"
PLAY_AGAIN_ME_SECOND: Final = "PlayAgainMeSecond"
POSITIONS: Final = (X_PLAYING, O_PLAYING, VICTORY, DRAW, PLAY_AGAIN_ME_FIRST, PLAY_AGAIN_ME_SECOND)
RESTING: Final = (PLAY_AGAIN_ME_FIRST, PLAY_AGAIN_ME_SECOND)
KEYS: Final = ("noughts", "crosses", "position")


class XoData(NamedTuple):
    """An XO channel state's app data: the position and the two marks' 9-bit masks (top-left is 256)."""

    position: str
    crosses: int
    noughts: int


INITIAL: Final = XoData(PLAY_AGAIN_ME_SECOND, 0, 0)


def encode(data: XoData) -> dict[str, object]:
    """The app data as the state map holds it."""
    return {"noughts": data.noughts, "crosses": data.crosses, "position": data.position}


def decode(value: object) -> XoData:
    """The app data in ``value``: :class:`Malformed` unless well typed, with marks that fit the position."""
    fields = canonical.fields(value, "the xo app data", KEYS)
    data = XoData(
        canonical.choice(fields["position"], "'position'", POSITIONS),
        canonical.whole_number(fields["crosses"], "'crosses'", 0, FULL_BOARD),
        canonical.whole_number(fields["noughts"], "'noughts'", 0, FULL_BOARD),
    )
    problem = _board_problem(data)
    if problem:
        raise Malformed(f"xo app data: {problem}")
    return data


def _board_problem(data: XoData) -> str | None:
    if data.crosses & data.noughts:
        return "a space holds both marks"
    crosses, noughts = data.crosses.bit_count(), data.noughts.bit_count()
    if data.position in RESTING:
        return None if crosses == noughts == 0 else f"{data.position} must have an empty board"
    if crosses - noughts not in (0, 1):
        return f"{crosses} crosses and {noughts} noughts: X moves first and the players alternate"
    return None


def transition_problem(old: State, new: State, fixed: Fixed) -> str | None:
    """Why ``new`` cannot follow ``old`` in an XO channel, or None when it can.

    The channel has checked the turn numbers, channel id and total already; this is
    the game: the position, the marks and what the mover's move does to the balances.
    """
    before, after = old.app, new.app
    assert isinstance(before, XoData) and isinstance(after, XoData)
    if after.position not in _NEXT[before.position]:
        return _NOT_A_MOVE.get((before.position, after.position)) or _not_a_move(before.position, after.position)
    step = f"{before.position} -> {after.position}"
    stake, moved = fixed.stake, mover(new.turn)
    if before.position in (VICTORY, DRAW, PLAY_AGAIN_ME_FIRST):
        if after.crosses or after.noughts:
            return f"{step} clears the board"
        if before.position != PLAY_AGAIN_ME_FIRST and min(old.balances) < stake:
            return f"{step}: a player cannot cover the stake of {stake} chips, so the match is over; conclude it"
        return paid_problem(step, old.balances, new.balances, moved, 0)
    if before.position == PLAY_AGAIN_ME_SECOND:
        if after.noughts or after.crosses.bit_count() != 1:
            return f"{step} places exactly one cross on an empty board"
        if min(old.balances) < stake:
            return (
                f"{step}: a player cannot cover the stake of {stake} chips, so no game can start; conclude the channel"
            )
        return paid_problem(step, old.balances, new.balances, moved, stake)
    x_moves = before.position == O_PLAYING
    placed, kept = (after.crosses, after.noughts) if x_moves else (after.noughts, after.crosses)
    had, unchanged = (before.crosses, before.noughts) if x_moves else (before.noughts, before.crosses)
    mark = "cross" if x_moves else "nought"
    if kept != unchanged or placed & had != had or (placed & ~had).bit_count() != 1:
        return f"{step} places exactly one {mark} on an empty space and changes nothing else"
    if has_won(placed):
        expected = VICTORY
    elif placed | kept == FULL_BOARD:
        expected = DRAW
    else:
        expected = X_PLAYING if x_moves else O_PLAYING
    if after.position != expected:
        return f"{step}: the board after this {mark} is {expected}"
    swing = stake if expected == DRAW else 2 * stake
    return paid_problem(step, old.balances, new.balances, moved, swing)


def valid_transition(old: State, new: State, fixed: Fixed) -> bool:
    """Whether ``new`` may follow ``old`` in an XO channel (see :func:`transition_problem` for why not)."""
    return transition_problem(old, new, fixed) is None


_NEXT: Final = {
    PLAY_AGAIN_ME_SECOND: (X_PLAYING,),
    X_PLAYING: (O_PLAYING, VICTORY),
    O_PLAYING: (X_PLAYING, VICTORY, DRAW),
    VICTORY: (PLAY_AGAIN_ME_FIRST,),
    DRAW: (PLAY_AGAIN_ME_FIRST,),
    PLAY_AGAIN_ME_FIRST: (PLAY_AGAIN_ME_SECOND,),
}


def _not_a_move(before: str, after: str) -> str:
    return f"{before} -> {after} is not a move: after {before} comes {' or '.join(_NEXT[before])}"


#: The refusal of each step between two positions that is not a move, written once: most candidate states a
#: player can be sent are refused here, so the processor (and the exhaustive test) no longer formats it each time.
_NOT_A_MOVE: Final = {
    (before, after): _not_a_move(before, after) for before in _NEXT for after in POSITIONS if after not in _NEXT[before]
}
