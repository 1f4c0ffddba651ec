"""What the match asks a player for, and how it waits for the answer without ever blocking on it.

The match loop asks (:meth:`Chooser.ask`) and then polls (:meth:`Chooser.answer`) on
every pass, so while a person thinks, the loop goes on reading the chain and the broker
and can answer a challenge, or play the computer's move for them when a challenge's
deadline nears. A question no longer worth answering (the channel closed, or moved on)
is withdrawn with the reason. A bot answers at once (:class:`Immediate`).
"""

from __future__ import annotations

from typing import NamedTuple, Protocol


class Question(NamedTuple):
    """A move the match needs from the player: a space (xo) or a throw (rps) for ``turn``."""

    turn: int
    game: str
    board: str = ""
    mark: str = ""
    deadline: float | None = None
    """When a challenge waits on this move: the chain's deadline (Unix time), shown as a local clock time."""
    computer_at: float | None = None
    """When the computer plays the move for the player if none has come (Unix time; None: it never does)."""


Answer = int | str


class Chooser(Protocol):
    """Who picks this player's moves: a person (at a terminal or a page) or a bot."""

    def ask(self, question: Question) -> None:
        """Start asking (return at once); asking again replaces the question (with a deadline, say)."""

    def answer(self) -> Answer | None:
        """The answer to the question asked, once given (then the question is done), or None while none is."""

    def withdraw(self, reason: str) -> None:
        """The question asked no longer counts; ``reason`` says why, for the person."""


class Picker(Protocol):
    """A bot's moves, chosen at once."""

    def xo_space(self, board: str, mark: str) -> int:
        """The space (1-9) to take for ``mark`` on ``board``."""

    def rps_throw(self) -> str:
        """A throw: rock, paper or scissors."""


class Immediate:
    """A chooser that answers as it is asked: a bot (``chips bot``, the watchtower, the computer's stand-in)."""

    def __init__(self, picker: Picker) -> None:
        self.picker = picker
        self._answer: Answer | None = None

    def ask(self, question: Question) -> None:
        """Pick the move now; :meth:`answer` hands it over."""
        self._answer = pick(self.picker, question)

    def answer(self) -> Answer | None:
        """The move picked when asked (once)."""
        given, self._answer = self._answer, None
        return given

    def withdraw(self, reason: str) -> None:
        """Forget the move picked."""
        self._answer = None


def pick(picker: Picker, question: Question) -> Answer:
    """``picker``'s move for ``question``."""
    return picker.xo_space(question.board, question.mark) if question.game == "xo" else picker.rps_throw()

