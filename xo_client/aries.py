"""XO games as Aries Tic Tac Toe Protocol 1.0 message threads, and back. Pure: dicts in, dicts out.

The protocol (Aries RFC 0003's example protocol) plays tic-tac-toe between two agents
as a thread of JSON messages; an XO game on the ledger is the same game. This module
turns the moves of a game into the thread (:func:`to_thread`), checks a thread against
the XO rules (:func:`check_thread`) and gives back the moves to replay
(:func:`moves_of`). ``docs/aries.md`` describes the mapping in full; in short:

- one ``move`` message per move, ``@type`` ``did:sov:SLfEi9esrjzybysFxQZbfq;spec/tictactoe/1.0/move``,
  ``me`` the mark of its sender, ``moves`` every move so far in ``X:B2`` notation
  (column letter A-C, row number 1-3, :mod:`xo_client.notation`), growing by one each time;
- the first message's ``@id`` is the thread id; every later message carries
  ``~thread: {"thid": <that id>, "sender_order": n}``, where ``n`` counts the earlier
  messages of the same sender (Aries RFC 0008): X's messages 0, 1, 2, ... and O's too;
- an ``outcome`` message closes a finished game (``winner`` ``X``, ``O`` or ``none``)
  or an abandoned one (``winner`` null).

Checking uses :mod:`xo_tp.rules` for every game decision (whose turn, occupied cells,
the result), so a thread is valid exactly when the ledger would accept its moves.
Problems are reported with the protocol's catalog codes (``not-your-turn``,
``already-occupied``, ``bad-move``) where one fits, and ``bad-message`` -- ours, not in
the catalog -- for a message that is not a well-formed part of the thread at all.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Final, NamedTuple

from xo_client.notation import grid_name, parse_space
from xo_tp import rules

#: The protocol's identifier (PIURI) as RFC 0003 gives it; message types append ``/move`` or ``/outcome``.
PROTOCOL: Final = "did:sov:SLfEi9esrjzybysFxQZbfq;spec/tictactoe/1.0"
#: The same protocol under the ``https://didcomm.org/`` prefix that Aries RFC 0348 moved to; accepted on input.
DIDCOMM_PROTOCOL: Final = "https://didcomm.org/tictactoe/1.0"
MOVE: Final = "move"
OUTCOME: Final = "outcome"
MOVE_TYPE: Final = f"{PROTOCOL}/{MOVE}"
OUTCOME_TYPE: Final = f"{PROTOCOL}/{OUTCOME}"

#: The protocol's problem codes (its message catalog), spelled as it spells them.
NOT_YOUR_TURN: Final = "not-your-turn"
ALREADY_OCCUPIED: Final = "already-occupied"
BAD_MOVE: Final = "bad-move"
#: Ours: a message that is not a well-formed part of a tictactoe thread (shape, threading, outcome).
BAD_MESSAGE: Final = "bad-message"
PROBLEM_CODES: Final = (NOT_YOUR_TURN, ALREADY_OCCUPIED, BAD_MOVE, BAD_MESSAGE)

#: ``winner`` of a draw; an abandoned game's winner is JSON null.
NO_WINNER: Final = "none"
WINNERS: Final = {rules.P1_WIN: rules.PLAYER_1_MARK, rules.P2_WIN: rules.PLAYER_2_MARK, rules.TIE: NO_WINNER}

#: The protocol's move notation, ``(?i)[XO]:[A-C][1-3]``, ASCII only.
MOVE_PATTERN: Final = re.compile(r"[XO]:[A-C][1-3]", re.IGNORECASE | re.ASCII)
#: A message id as Aries RFC 0008 allows it.
ID_PATTERN: Final = re.compile(r"[-_./a-zA-Z0-9]{8,64}", re.ASCII)
#: How much of a bad value an explanation quotes.
SHOWN_LENGTH: Final = 40
MARKS: Final = (rules.PLAYER_1_MARK, rules.PLAYER_2_MARK)
#: How explanations name the kind of a JSON value.
JSON_KINDS: Final = {
    bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array", dict: "an object",
}  # fmt: skip


class Placement(NamedTuple):
    """One move: ``mark`` (X or O) placed on ``space`` (1-9)."""

    mark: str
    space: int

    def notation(self) -> str:
        """The protocol's spelling, e.g. ``X:B2``."""
        return f"{self.mark}:{grid_name(self.space)}"


class Problem(NamedTuple):
    """The first thing wrong with a thread: a problem code, the index of the message (None: the whole thread), why."""

    code: str
    index: int | None
    explanation: str


class InvalidThread(ValueError):
    """A thread that :func:`check_thread` refuses; ``problem`` says where and why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.explanation)
        self.problem = problem


def parse_move(text: object) -> Placement | None:
    """The move ``text`` spells in the protocol's notation (either case), or None if it spells none."""
    if not isinstance(text, str) or not MOVE_PATTERN.fullmatch(text):
        return None
    return Placement(text[0].upper(), parse_space(text[2:]))


def new_message_id() -> str:
    """A fresh ``@id``: a random UUID, as RFC 0008 recommends."""
    return str(uuid.uuid4())


def other(mark: str) -> str:
    """The opponent's mark."""
    return rules.PLAYER_2_MARK if mark == rules.PLAYER_1_MARK else rules.PLAYER_1_MARK


def played(moves: Sequence[Placement]) -> rules.Game:
    """The game ``moves`` give from the empty board, by the rules; ``ValueError`` for a move they refuse."""
    game = rules.new_game("thread")
    for number, move in enumerate(moves, start=1):
        if move.mark != rules.mark_to_move(game.state):
            raise ValueError(f"move {number} ({move.notation()}) is out of turn: the game is {game.state}")
        try:
            game = rules.take(game, move.space, move.mark)
        except rules.IllegalMove as refused:
            raise ValueError(f"move {number} ({move.notation()}) is illegal: {refused}") from refused
    return game


def to_thread(
    moves: Sequence[Placement], *, abandoned: bool = False, new_id: Callable[[], str] = new_message_id
) -> list[dict[str, object]]:
    """The protocol thread of a game played as ``moves`` (in order, from the empty board).

    One ``move`` message per move, then an ``outcome`` message if the moves end the game
    (``winner`` from the rules) or if ``abandoned`` (the game was deleted before it
    ended: ``winner`` null; a game deleted after it ended keeps its winner). The
    outcome's sender is the player who did not make the last move -- the loser
    acknowledging, as the protocol suggests -- and it repeats ``me`` and ``moves``.
    Every message gets an ``@id`` from ``new_id`` (inject one in tests). Moves the
    rules refuse are a ``ValueError``: a ledger's history never holds one.
    """
    game = played(moves)
    notation = [move.notation() for move in moves]
    thread: list[dict[str, object]] = []
    for index, move in enumerate(moves):
        thread.append(_message(MOVE_TYPE, index, thread, new_id) | {"me": move.mark, "moves": notation[: index + 1]})
    finished = game.state in rules.FINISHED_STATES
    if finished or abandoned:
        outcome = _message(OUTCOME_TYPE, len(moves), thread, new_id)
        if moves:
            outcome |= {"me": other(moves[-1].mark), "moves": notation}
        thread.append(outcome | {"winner": WINNERS[game.state] if finished else None})
    return thread


def _message(kind: str, index: int, thread: list[dict[str, object]], new_id: Callable[[], str]) -> dict[str, object]:
    """The envelope of message ``index``: type, id, and the thread decorator after the first.

    Players alternate, so message ``index`` is its sender's ``index // 2``-th.
    """
    message: dict[str, object] = {"@type": kind, "@id": new_id()}
    if thread:
        message["~thread"] = {"thid": thread[0]["@id"], "sender_order": index // 2}
    return message


def check_thread(messages: object) -> Problem | None:
    """The first problem in a thread (any decoded JSON value), or None if it is a valid XO game.

    Valid: a JSON array of ``move`` messages, each adding exactly one move that the XO
    rules accept (X first, turns alternating, empty cells), optionally preceded by an
    invitation (a first message from O with no moves, asking X to open) and optionally
    closed by one ``outcome`` message whose ``winner`` is the game's result (null if the
    game had not ended). The order inside ``moves`` does not matter, as the protocol
    says; which move a message adds does. Fields the protocol leaves open (``comment``,
    other decorators) are not checked. An empty array is a valid thread of a game
    nobody has played. Never raises.
    """
    return _replay(messages)[1]


def moves_of(messages: object) -> list[Placement]:
    """The moves of a valid thread in the order they were played; :class:`InvalidThread` otherwise."""
    moves, problem = _replay(messages)
    if problem is not None:
        raise InvalidThread(problem)
    return moves


def abandoned(messages: Sequence[object]) -> bool:
    """Whether a valid thread ends with an ``outcome`` whose ``winner`` is null: the game was given up unfinished."""
    if not messages or not isinstance(messages[-1], dict):
        return False
    last = messages[-1]
    return _message_kind(last.get("@type")) == OUTCOME and "winner" in last and last["winner"] is None


class _Thread:
    """What the messages so far have established: the game, its moves, the thread id, who sent what."""

    def __init__(self) -> None:
        self.game = rules.new_game("thread")
        self.moves: list[Placement] = []
        self.thid: str | None = None
        self.ids: set[str] = set()
        self.sent: Counter[str] = Counter()
        self.closed_at: int | None = None


def _replay(messages: object) -> tuple[list[Placement], Problem | None]:
    if not isinstance(messages, list):
        return [], Problem(BAD_MESSAGE, None, f"a thread is a JSON array of messages, not {_kind_of(messages)}")
    thread = _Thread()
    for index, message in enumerate(messages):
        explained = _step(thread, index, message)
        if explained is not None:
            code, explanation = explained
            return thread.moves, Problem(code, index, explanation)
    return thread.moves, None


def _step(thread: _Thread, index: int, message: object) -> tuple[str, str] | None:
    """Check message ``index`` against the thread so far and apply it; (code, explanation) if it is bad."""
    if not isinstance(message, dict):
        return BAD_MESSAGE, f"a message is a JSON object, not {_kind_of(message)}"
    if thread.closed_at is not None:
        return BAD_MESSAGE, f"message {thread.closed_at} already sent the outcome; nothing follows it"
    kind = _message_kind(message.get("@type"))
    if kind is None:
        return BAD_MESSAGE, f"@type {_shown(message.get('@type'))} is not {MOVE_TYPE} or {OUTCOME_TYPE}"
    problem = _check_envelope(thread, index, message)
    if problem is None:
        problem = _check_me(message, required=kind == MOVE)
    if problem is not None:
        return BAD_MESSAGE, problem
    if kind == MOVE:
        return _apply_move(thread, index, message)
    return _apply_outcome(thread, index, message)


def _message_kind(message_type: object) -> str | None:
    for protocol in (PROTOCOL, DIDCOMM_PROTOCOL):
        for kind in (MOVE, OUTCOME):
            if message_type == f"{protocol}/{kind}":
                return kind
    return None


def _check_envelope(thread: _Thread, index: int, message: dict[str, object]) -> str | None:
    """``@id`` and ``~thread``: the first message names the thread, the others point to it (RFC 0008)."""
    message_id = message.get("@id")
    if index == 0 or "@id" in message:
        if not isinstance(message_id, str) or not ID_PATTERN.fullmatch(message_id):
            need = "the first message needs an @id of" if index == 0 else "@id must be"
            return f"{need} 8 to 64 letters, digits, '-', '_', '.' or '/', not {_shown(message_id)}"
        if message_id in thread.ids:
            return f"@id {_shown(message_id)} is already used by an earlier message"
        thread.ids.add(message_id)
    if index == 0:
        thread.thid = str(message_id)
    decorator = message.get("~thread")
    if decorator is None and index == 0:
        return None
    if not isinstance(decorator, dict):
        return f"~thread must be an object with thid {_shown(thread.thid)}, not {_shown(decorator)}"
    if decorator.get("thid", thread.thid if index == 0 else None) != thread.thid:
        return f"~thread.thid {_shown(decorator.get('thid'))} is not the thread's id {_shown(thread.thid)}"
    order = decorator.get("sender_order", 0)  # RFC 0008: a reply without one is its sender's first
    if not isinstance(order, int) or isinstance(order, bool) or order < 0:
        return f"~thread.sender_order must be a whole number, not {_shown(order)}"
    return None


def _check_me(message: dict[str, object], *, required: bool) -> str | None:
    if "me" not in message and not required:
        return None
    if not isinstance(message.get("me"), str) or str(message["me"]).upper() not in MARKS:
        return f"me must be X or O, the sender's mark, not {_shown(message.get('me'))}"
    return None


def _check_sender_order(thread: _Thread, message: dict[str, object], senders: Sequence[str]) -> str | None:
    """``sender_order`` counts the sender's earlier messages; ``senders`` are the marks the sender may have."""
    decorator = message.get("~thread")
    order = decorator.get("sender_order", 0) if isinstance(decorator, dict) else 0
    expected = sorted({thread.sent[mark] for mark in senders})
    if order not in expected:
        return f"~thread.sender_order is {order}, but its sender has sent {' or '.join(map(str, expected))} before"
    return None


def _apply_move(thread: _Thread, index: int, message: dict[str, object]) -> tuple[str, str] | None:
    me = str(message["me"]).upper()
    problem = _check_sender_order(thread, message, [me])
    if problem is not None:
        return BAD_MESSAGE, problem
    listed = _listed_moves(message.get("moves", []))
    if isinstance(listed, tuple):
        return listed
    before, now = Counter(thread.moves), Counter(listed)
    missing = before - now
    if missing:
        return BAD_MOVE, f"moves leaves out {_notations(missing)}, played in earlier messages"
    added = now - before
    if not added:
        if index == 0 and me == rules.PLAYER_2_MARK:
            thread.sent[me] += 1  # an invitation: O asks X to make the first move
            return None
        if index == 0:
            return BAD_MESSAGE, "an invitation from X asks O to move first, but in XO X moves first"
        return BAD_MOVE, "moves adds no move; each move message adds exactly one"
    if added.total() > 1:
        return BAD_MOVE, f"moves adds {_notations(added)}; each move message adds exactly one"
    move = next(iter(added))
    turn = rules.mark_to_move(thread.game.state)
    if turn is None:
        return BAD_MOVE, f"{move.notation()} comes after the end of the game ({thread.game.state})"
    if me != turn:
        return NOT_YOUR_TURN, f"{me} moved ({move.notation()}) when it was {turn}'s turn"
    if move.mark != me:
        return BAD_MOVE, f"{move.notation()} places an {move.mark}, but its sender plays {me}"
    if thread.game.board[move.space - 1] != rules.EMPTY:
        return ALREADY_OCCUPIED, f"{move.notation()}: cell {grid_name(move.space)} is already occupied"
    thread.game = rules.take(thread.game, move.space, me)
    thread.moves.append(move)
    thread.sent[me] += 1
    return None


def _apply_outcome(thread: _Thread, index: int, message: dict[str, object]) -> tuple[str, str] | None:
    senders = [str(message["me"]).upper()] if "me" in message else list(MARKS)
    problem = _check_sender_order(thread, message, senders)
    if problem is not None:
        return BAD_MESSAGE, problem
    if "moves" in message:
        listed = _listed_moves(message["moves"])
        if isinstance(listed, tuple):
            return listed
        if Counter(listed) != Counter(thread.moves):
            return BAD_MESSAGE, f"the outcome's moves are not the {len(thread.moves)} moves played"
    if "winner" not in message:
        return BAD_MESSAGE, "an outcome needs a winner: X, O, none (a draw) or null (abandoned)"
    winner = message["winner"]
    expected = WINNERS.get(thread.game.state)
    if winner != expected:
        result = f"the game ended with winner {expected}" if expected else "the game had not ended (winner null)"
        return BAD_MESSAGE, f"the outcome names winner {_shown(winner)}, but {result}"
    thread.closed_at = index
    return None


def _listed_moves(moves: object) -> list[Placement] | tuple[str, str]:
    """The moves a ``moves`` field lists, or (code, explanation) if it is not a list of moves."""
    if not isinstance(moves, list):
        return BAD_MESSAGE, f'moves must be a JSON array of moves like "X:B2", not {_shown(moves)}'
    if len(moves) > rules.BOARD_LENGTH:
        return BAD_MOVE, f"moves lists {len(moves)} moves; a board has room for {rules.BOARD_LENGTH}"
    listed = []
    for item in moves:
        move = parse_move(item)
        if move is None:
            return BAD_MOVE, f'move {_shown(item)} makes no sense; expected a string like "X:A1" or "O:C3"'
        listed.append(move)
    return listed


def _notations(moves: Counter[Placement]) -> str:
    return ", ".join(move.notation() for move in sorted(moves.elements()))


def _kind_of(value: object) -> str:
    """How a JSON value is named in explanations."""
    if value is None:
        return "null"
    return JSON_KINDS.get(type(value), type(value).__name__)


def _shown(value: object) -> str:
    """A scalar as JSON, cut short, or the kind of a container: explanations never repeat a flood of input."""
    if isinstance(value, str):
        clipped = value[:SHOWN_LENGTH]
        return json.dumps(clipped, ensure_ascii=True) + ("..." if len(value) > SHOWN_LENGTH else "")
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)[:SHOWN_LENGTH]
    return _kind_of(value)
