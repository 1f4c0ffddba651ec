"""What a position in XO holds: who has a line, which moves are legal, and how perfect play ends it.

One pure function, :func:`analyze`, answers for a board plus its game state (whose
turn it is, or that the game is over) -- what ``xo show --analyze``, the AI and the web
page all need, computed in one place. The answers follow :mod:`xo_tp.rules` exactly:

- ``winners``: the marks that fill a row, column or diagonal (``rules.winners``), ``X``
  before ``O``. In play at most one mark ever has a line; both can only come from
  foreign state, and both are then listed.
- ``legal_moves``: the spaces (1-9) that ``rules.take`` would accept: every empty space
  unless the state is finished (P1-WIN, P2-WIN, TIE). As in the rules, the *state*
  decides whether a game is over; on every board play can reach, the state the rules
  stored also says a line or a full board ended it.
- ``outcome``: how the game ends with perfect play from here: ``"X"``, ``"O"`` or
  ``"draw"``. For a game that is over it is the result itself (P1-WIN -> ``"X"``,
  P2-WIN -> ``"O"``, TIE -> ``"draw"``), so a caller never has to ask two places. A
  full board whose state still names a player to move (foreign state only: no move is
  left) gets the board's own verdict: the sole mark with a line, else ``"draw"``.
- ``best_moves``: every legal move that keeps ``outcome`` within reach, best first: the
  quickest win first when the mover wins, the slowest loss first when the mover loses
  (ties by space number). Empty when the game is over.

Boards that cannot arise in play (both marks in line, mark counts that are not X = O or
X = O + 1, a state that disagrees with the board) get the answer the rules would play
out from there: whose turn it is comes from the state, never from counting marks, and
after each move a sole line wins, a full board draws, otherwise play passes -- the
rules' :func:`~xo_tp.rules.state_after_move`. Only inputs the rules themselves could
not hold -- a board that is not 9 of ``X``/``O``/``-``, an unknown state -- are a
``ValueError``.

As JSON (``Analysis.as_json``), e.g. for ``X`` to move on ``XO--X-O--`` (9 wins at once, 4 and
6 fork and win two moves later, 3 and 8 only draw)::

    {"winners": [], "legal_moves": [3, 4, 6, 8, 9], "outcome": "X", "best_moves": [9, 4, 6]}
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from xo_tp import rules
from xo_tp.bitboard import from_board
from xo_tp.solver import DRAW, move_results, rank, verdict

#: ``outcome`` for each finished state.
RESULTS = {rules.P1_WIN: rules.PLAYER_1_MARK, rules.P2_WIN: rules.PLAYER_2_MARK, rules.TIE: DRAW}


class Analysis(NamedTuple):
    """The answers for one position; see the module docstring for what each one means."""

    winners: tuple[str, ...]
    legal_moves: tuple[int, ...]
    outcome: str
    best_moves: tuple[int, ...]

    def as_json(self) -> dict[str, object]:
        """The object ``xo show --analyze --json`` prints: lists and strings only."""
        return {
            "winners": list(self.winners),
            "legal_moves": list(self.legal_moves),
            "outcome": self.outcome,
            "best_moves": list(self.best_moves),
        }


class HasBoardAndState(Protocol):
    """Any game value with a board and a state: ``xo_tp.rules.Game``, ``xo_client.games.Game``."""

    @property
    def board(self) -> str: ...

    @property
    def state(self) -> str: ...


def check_position(board: str, state: str) -> None:
    """Raise ``ValueError`` unless ``board`` and ``state`` are values the rules can hold."""
    if len(board) != rules.BOARD_LENGTH or not set(board) <= set(rules.MARKS):
        raise ValueError(f"{board!r} is not a board: 9 characters, each X, O or -")
    if state not in rules.GAME_STATES:
        raise ValueError(f"{state!r} is not a game state: one of {', '.join(sorted(rules.GAME_STATES))}")


def winners(board: str) -> tuple[str, ...]:
    """The marks with a line on ``board``, ``X`` before ``O``: none, one, or (foreign state only) both."""
    found = rules.winners(board)
    return tuple(mark for mark in (rules.PLAYER_1_MARK, rules.PLAYER_2_MARK) if mark in found)


def legal_moves(board: str, state: str) -> tuple[int, ...]:
    """The spaces ``rules.take`` accepts in this position: the empty ones, none once the state is finished."""
    if rules.mark_to_move(state) is None:
        return ()
    return tuple(index + 1 for index, cell in enumerate(board) if cell == rules.EMPTY)


def analyze(board: str, state: str) -> Analysis:
    """Winners, legal moves, perfect-play outcome and best moves for ``board`` in game state ``state``."""
    check_position(board, state)
    found = winners(board)
    mover = rules.mark_to_move(state)
    if mover is None:
        return Analysis(found, (), RESULTS[state], ())
    position = from_board(board)
    results = move_results(position, mover)
    if not results:
        return Analysis(found, (), verdict(position) or DRAW, ())
    ranked = sorted(results, key=lambda space: (rank(results[space], mover), -space), reverse=True)
    outcome = results[ranked[0]].outcome
    best = tuple(space for space in ranked if results[space].outcome == outcome)
    return Analysis(found, tuple(sorted(results)), outcome, best)


def analyze_game(game: HasBoardAndState) -> Analysis:
    """:func:`analyze` for a game value as callers hold it."""
    return analyze(game.board, game.state)
