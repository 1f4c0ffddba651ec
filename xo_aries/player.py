"""One player's side of a Tic Tac Toe 1.0 game: the seed's state machine over the XO rules. Pure, no I/O.

A player is in one of four states (the protocol's player state machine):

- ``my-move``: the next move is mine; I may send it, or abandon (send an ``outcome``);
- ``their-move``: I wait for the other player's move or outcome;
- ``wrap-up``: a move I received ended the game; my ``outcome`` acknowledging it is due;
- ``done``: the game is over and nothing more is sent (I sent the outcome, received one, or my
  own move ended the game and the acknowledgement is the other player's to send).

Every game decision (whose turn, an occupied cell, the result) is :mod:`xo_tp.rules`'; this
module only decides which protocol event is allowed in which state and what a received
``moves`` list adds. A refused event is a :class:`Refusal` carrying the protocol's catalog code,
which the agent either turns into a 4xx (its own player's mistake, never sent) or into a
``problem-report`` (the other agent's), leaving the game unchanged either way.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Final

from xo_client.aries import (
    ALREADY_OCCUPIED,
    BAD_MESSAGE,
    BAD_MOVE,
    NOT_YOUR_TURN,
    WINNERS,
    Placement,
    other,
    parse_move,
    played,
)
from xo_client.notation import BadSpace, grid_name, parse_space
from xo_tp import rules

MY_MOVE: Final = "my-move"
THEIR_MOVE: Final = "their-move"
WRAP_UP: Final = "wrap-up"
DONE: Final = "done"
STATES: Final = (MY_MOVE, THEIR_MOVE, WRAP_UP, DONE)
MARKS: Final = (rules.PLAYER_1_MARK, rules.PLAYER_2_MARK)
#: How much of a refused value an explanation repeats.
SHOWN_LENGTH: Final = 40
#: What an ``outcome`` without a ``winner`` field reads as: the seed requires the field (null abandons),
#: so its absence is refused, never taken for a null. Any value that is not a result is refused anyway.
NO_WINNER_FIELD: Final = "(no winner field)"


class Refusal(ValueError):
    """An event the state machine or the rules refuse: ``code`` is the protocol's catalog code.

    ``conflict`` says the event is well formed but the game's state forbids it (out of turn, an
    occupied cell, the game over), as opposed to a malformed one.
    """

    def __init__(self, code: str, explanation: str, *, conflict: bool | None = None) -> None:
        super().__init__(explanation)
        self.code = code
        self.explanation = explanation
        self.conflict = code in (NOT_YOUR_TURN, ALREADY_OCCUPIED) if conflict is None else conflict


@dataclass(frozen=True)
class Player:
    """My side of one game: my mark, the moves so far (in play order), my state, and how it ended.

    ``winner`` is ``X``, ``O`` or ``none`` (a draw) once the board decided the game; ``abandoned``
    says that an ``outcome`` with a null winner ended it first.
    """

    me: str
    moves: tuple[Placement, ...] = ()
    state: str = THEIR_MOVE
    winner: str | None = None
    abandoned: bool = False

    @property
    def game(self) -> rules.Game:
        """The XO game the moves give, by the rules."""
        return played(self.moves)

    @property
    def board(self) -> str:
        """The board as the XO state holds it: nine of ``-``, ``X``, ``O``, row by row."""
        return self.game.board

    @property
    def turn(self) -> str | None:
        """The mark to move, or None once the game is over (decided or abandoned)."""
        return None if self.abandoned else rules.mark_to_move(self.game.state)

    def notation(self) -> list[str]:
        """The moves as the protocol spells them, e.g. ``["X:B2", "O:A1"]``."""
        return [move.notation() for move in self.moves]


def cell_space(cell: object) -> int:
    """The space (1-9) a cell such as ``B2`` names; :class:`Refusal` (``bad-move``) otherwise."""
    if not isinstance(cell, str) or len(cell) != 2:
        raise Refusal(BAD_MOVE, f"{_shown(cell)} is not a cell: use A1 to C3 (column, row)")
    try:
        return parse_space(cell)
    except BadSpace:
        raise Refusal(BAD_MOVE, f"{_shown(cell)} is not a cell: use A1 to C3 (column, row)") from None


def opened(me: object, cell: object = None) -> Player:
    """The player who starts a game as ``me``: X opens with ``cell``; O, with no cell, invites X to open.

    In XO, X always moves first, so X must name its first move and O must not.
    """
    if me not in MARKS:
        raise Refusal(BAD_MESSAGE, f"me must be X or O, not {_shown(me)}")
    if me == rules.PLAYER_2_MARK:
        if cell is not None:
            raise Refusal(NOT_YOUR_TURN, "X moves first: as O, start the game without a move and X will open")
        return Player(me=me, state=THEIR_MOVE)
    if cell is None:
        raise Refusal(BAD_MOVE, "X moves first: as X, start the game with your first move")
    return _after_own_move(Player(me=me, state=MY_MOVE), cell)


def invited(me: object, listed: object) -> Player:
    """My side of a game the other player started with a first ``move`` whose ``me`` and ``moves`` are given."""
    sender = _sender_mark(me)
    mine = other(sender)
    if not _is_list(listed) or not listed:
        if sender == rules.PLAYER_1_MARK:
            raise Refusal(NOT_YOUR_TURN, "an invitation from X asks O to move first, but X moves first")
        return Player(me=mine, state=MY_MOVE)
    return received_move(Player(me=mine, state=THEIR_MOVE), me, listed)


def own_move(player: Player, cell: object) -> Player:
    """``send move``: my move on ``cell``; refused unless it is my move and the cell is empty."""
    if player.state != MY_MOVE:
        if player.state == THEIR_MOVE:
            raise Refusal(NOT_YOUR_TURN, f"it is {other(player.me)}'s move, not yours")
        raise Refusal(BAD_MOVE, "the game is over", conflict=True)
    return _after_own_move(player, cell)


def _after_own_move(player: Player, cell: object) -> Player:
    space = cell_space(cell)
    game = player.game
    if game.board[space - 1] != rules.EMPTY:
        raise Refusal(ALREADY_OCCUPIED, f"cell {grid_name(space)} is already occupied")
    moves = (*player.moves, Placement(player.me, space))
    state = played(moves).state
    if state in rules.FINISHED_STATES:
        return replace(player, moves=moves, state=DONE, winner=WINNERS[state])
    return replace(player, moves=moves, state=THEIR_MOVE)


def received_move(player: Player, me: object, listed: object) -> Player:
    """``receive move``: the other player's ``move`` message (its ``me`` and ``moves``) applied to my side.

    The message must add exactly one move, of the sender's mark, to the moves so far (their order
    in the list does not matter, as the protocol says), on an empty cell, when it is the
    sender's turn. Anything else is a :class:`Refusal` with the catalog code for it.
    """
    sender = _sender_mark(me)
    if sender == player.me:
        raise Refusal(BAD_MESSAGE, f"me is {sender}, but {sender} is my mark in this game")
    if player.abandoned:
        raise Refusal(BAD_MOVE, "the game was abandoned")
    if player.state in (WRAP_UP, DONE):
        raise Refusal(BAD_MOVE, f"the game is over (winner {player.winner})")
    if not _is_list(listed):
        raise Refusal(BAD_MESSAGE, f'moves must be a JSON array of moves like "X:B2", not {_shown(listed)}')
    if len(listed) > rules.BOARD_LENGTH:
        raise Refusal(BAD_MOVE, f"moves lists {len(listed)} moves; a board has room for {rules.BOARD_LENGTH}")
    moves = []
    for item in listed:
        move = parse_move(item)
        if move is None:
            raise Refusal(BAD_MOVE, f'move {_shown(item)} makes no sense; expected a string like "X:A1"')
        moves.append(move)
    before, now = Counter(player.moves), Counter(moves)
    if missing := before - now:
        raise Refusal(BAD_MOVE, f"moves leaves out {_listed(missing)}, played before")
    added = now - before
    if added.total() != 1:
        raise Refusal(BAD_MOVE, f"moves adds {_listed(added) or 'nothing'}; each move adds exactly one")
    move = next(iter(added))
    if player.state == MY_MOVE:
        raise Refusal(NOT_YOUR_TURN, f"{sender} moved ({move.notation()}) when it was {player.me}'s turn")
    turn = rules.mark_to_move(player.game.state)
    if sender != turn:
        raise Refusal(NOT_YOUR_TURN, f"{sender} moved ({move.notation()}) when it was {turn}'s turn")
    if move.mark != sender:
        raise Refusal(BAD_MOVE, f"{move.notation()} places an {move.mark}, but its sender plays {sender}")
    if player.game.board[move.space - 1] != rules.EMPTY:
        raise Refusal(ALREADY_OCCUPIED, f"{move.notation()}: cell {grid_name(move.space)} is already occupied")
    after = (*player.moves, move)
    state = played(after).state
    if state in rules.FINISHED_STATES:
        return replace(player, moves=after, state=WRAP_UP, winner=WINNERS[state])
    return replace(player, moves=after, state=MY_MOVE)


def own_outcome(player: Player) -> Player:
    """``send outcome``: acknowledge the end in ``wrap-up``, or abandon an unfinished game."""
    if player.state == DONE:
        raise Refusal(BAD_MOVE, "the game is already over", conflict=True)
    if player.state == WRAP_UP:
        return replace(player, state=DONE)
    return replace(player, state=DONE, abandoned=True)


def received_outcome(player: Player, winner: object) -> Player:
    """``receive outcome``: the other player ends the game: ``winner`` null abandons it, else it must be the result."""
    if winner == NO_WINNER_FIELD:
        raise Refusal(BAD_MESSAGE, "the outcome has no winner field: the protocol requires one (null to abandon)")
    if winner is None:
        if player.winner is not None:
            return replace(player, state=DONE)
        return replace(player, state=DONE, abandoned=True)
    expected = player.winner
    if winner != expected:
        result = f"winner {expected}" if expected else "no winner yet (null, to abandon)"
        raise Refusal(BAD_MESSAGE, f"the outcome names winner {_shown(winner)}, but the game has {result}")
    return replace(player, state=DONE)


def outcome_winner(player: Player) -> str | None:
    """The ``winner`` my ``outcome`` message names: the result, ``none`` for a draw, null if abandoned."""
    return None if player.abandoned else player.winner


def _sender_mark(me: object) -> str:
    if not isinstance(me, str) or me.upper() not in MARKS:
        raise Refusal(BAD_MESSAGE, f"me must be X or O, the sender's mark, not {_shown(me)}")
    return me.upper()


def _is_list(value: object) -> bool:
    return isinstance(value, list | tuple)


def _listed(moves: Counter[Placement]) -> str:
    return ", ".join(move.notation() for move in sorted(moves.elements()))


def _shown(value: object) -> str:
    """A refused value as JSON-ish text, cut short: explanations never repeat a flood of input."""
    text = repr(value)
    return text[:SHOWN_LENGTH] + ("..." if len(text) > SHOWN_LENGTH else "")
