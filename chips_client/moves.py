"""The next state of a channel, as a player builds it: the app's moves, and when a match ends. Pure, no I/O.

Every state built here is checked against the app's own rule (:mod:`chips_tp.apps`)
before it is returned, so a client can never sign what the chain would refuse. A match
ends at a *settled* position (no stake in play: after an xo game or an rps reveal, or
before the next starts) once the rounds agreed are played or a player cannot cover
the stake, or, in a tournament's channel (which holds match points, not chips), once the
rounds left cannot change who wins: the player to move then proposes the final state,
which moves nothing.
"""

from __future__ import annotations

from typing import Final

from chips_tp import rps_app, xo_app
from chips_tp.apps import APPS
from chips_tp.channel import RPS, XO, Fixed, mover
from chips_tp.channel_state import State
from chips_tp.tournament import is_tournament_channel
from rps_tp.commitment import commitment
from xo_tp.bitboard import FULL_BOARD, has_won

#: Where no stake is in play: a final state may be proposed from here.
SETTLED: Final = {
    XO: (xo_app.VICTORY, xo_app.DRAW, xo_app.PLAY_AGAIN_ME_FIRST, xo_app.PLAY_AGAIN_ME_SECOND),
    RPS: (rps_app.START, rps_app.REVEAL),
}


class IllegalMove(ValueError):
    """A move the player asked for that the app does not allow here (an occupied square, ...)."""


def settled(state: State) -> bool:
    """Whether ``state`` is at a position with no stake in play."""
    return state.app.position in SETTLED[XO if isinstance(state.app, xo_app.XoData) else RPS]


def rounds_done(state: State, games_before: int) -> int:
    """Games (xo) or rounds (rps) finished at ``state``; xo counts its ``Victory`` and ``Draw`` states (``games_before``
    is how many the history held before ``state``)."""
    data = state.app
    if isinstance(data, xo_app.XoData):
        return games_before + (not state.final and data.position in (xo_app.VICTORY, xo_app.DRAW))
    return data.round if data.position in (rps_app.REVEAL, rps_app.START) else data.round - 1


def match_over(state: State, fixed: Fixed, done: int, rounds: int) -> bool:
    """Whether the next mover should propose the final state: settled, and rounds played, the stake not covered, or
    (a tournament's match, which only its winner matters to) a lead the rounds left cannot catch up."""
    if state.final or not settled(state):
        return False
    if (rounds > 0 and done >= rounds) or min(state.balances) < fixed.stake:
        return True
    lead = abs(state.balances[0] - state.balances[1]) // (2 * fixed.stake)  # rounds won more than lost
    return is_tournament_channel(fixed) and rounds > 0 and lead > rounds - done


def final_of(state: State) -> State:
    """The final state after ``state``: the same position and balances, one turn on, closing the channel."""
    return state._replace(turn=state.turn + 1, final=True)


def _paid(balances: tuple[int, int], to: int, amount: int) -> tuple[int, int]:
    paid = list(balances)
    paid[to] += amount
    paid[1 - to] -= amount
    return (paid[0], paid[1])


def xo_board(data: xo_app.XoData) -> str:
    """The board as the xo family writes it (``X``, ``O``, ``-``; space 1 first), for xo's AI and rendering."""
    return "".join(
        "X" if data.crosses >> (9 - space) & 1 else "O" if data.noughts >> (9 - space) & 1 else "-"
        for space in range(1, 10)
    )


def xo_mark(data: xo_app.XoData) -> str | None:
    """The mark the next mover places, or None when the next move places none (a rematch step)."""
    if data.position in (xo_app.PLAY_AGAIN_ME_SECOND, xo_app.O_PLAYING):
        return "X"
    return "O" if data.position == xo_app.X_PLAYING else None


def xo_next(state: State, fixed: Fixed, space: int | None) -> State:
    """The next xo state: ``space`` (1-9) for a mark, None for a rematch step (to ``PlayAgainMe...``)."""
    data, turn = state.app, state.turn + 1
    assert isinstance(data, xo_app.XoData)
    moved = mover(turn)
    mark = xo_mark(data)
    if mark is None:
        nxt = xo_app.PLAY_AGAIN_ME_SECOND if data.position == xo_app.PLAY_AGAIN_ME_FIRST else xo_app.PLAY_AGAIN_ME_FIRST
        return _checked(state, State(state.channel, turn, False, xo_app.XoData(nxt, 0, 0), state.balances), fixed)
    if space is None or not 1 <= space <= 9:
        raise IllegalMove("choose a space from 1 to 9")
    bit = 1 << (9 - space)
    if (data.crosses | data.noughts) & bit:
        raise IllegalMove(f"space {space} is taken")
    crosses, noughts = (data.crosses | bit, data.noughts) if mark == "X" else (data.crosses, data.noughts | bit)
    placed = crosses if mark == "X" else noughts
    if data.position == xo_app.PLAY_AGAIN_ME_SECOND:
        position, amount = xo_app.X_PLAYING, fixed.stake
    elif has_won(placed):
        position, amount = xo_app.VICTORY, 2 * fixed.stake
    elif crosses | noughts == FULL_BOARD:
        position, amount = xo_app.DRAW, fixed.stake
    else:
        position, amount = (xo_app.X_PLAYING if mark == "X" else xo_app.O_PLAYING), 2 * fixed.stake
    new = State(
        state.channel, turn, False, xo_app.XoData(position, crosses, noughts), _paid(state.balances, moved, amount)
    )
    return _checked(state, new, fixed)


def rps_next(state: State, fixed: Fixed, throw: str | None, salt: bytes | None) -> State:
    """The next rps state: the proposer's ``throw`` and ``salt`` to propose (committed) or reveal, the
    responder's ``throw`` to accept; neither to go back to ``Start`` after a reveal."""
    data, turn = state.app, state.turn + 1
    assert isinstance(data, rps_app.RpsData)
    moved = mover(turn)
    balances = state.balances
    if data.position == rps_app.START:
        if throw is None or salt is None:
            raise IllegalMove("a proposal needs a throw and a salt")
        round_ = data.round + 1
        committed = commitment(state.channel.hex(), round_, fixed.participants[moved], throw, salt)
        app = rps_app.RpsData(rps_app.ROUND_PROPOSED, round_, committed, None, None, None)
    elif data.position == rps_app.ROUND_PROPOSED:
        if throw is None:
            raise IllegalMove("accepting a round needs a throw")
        app = data._replace(position=rps_app.ROUND_ACCEPTED, answer=throw)
        balances = _paid(balances, moved, fixed.stake)
    elif data.position == rps_app.ROUND_ACCEPTED:
        if throw is None or salt is None:
            raise IllegalMove("revealing needs the throw and salt committed to")
        app = data._replace(position=rps_app.REVEAL, throw=throw, salt=salt)
        beaten = rps_app.round_winner((throw, data.answer))
        balances = _paid(balances, moved, 2 * fixed.stake if beaten == 0 else fixed.stake if beaten is None else 0)
    else:
        app = rps_app.RpsData(rps_app.START, data.round, None, None, None, None)
    return _checked(state, State(state.channel, turn, False, app, balances), fixed)


def _checked(old: State, new: State, fixed: Fixed) -> State:
    problem = APPS[fixed.app].transition_problem(old, new, fixed)
    if problem:
        raise IllegalMove(problem)
    return new
