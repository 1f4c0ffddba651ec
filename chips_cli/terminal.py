"""What ``chips play`` asks a person at a terminal or reads from a pipe, without ever holding the match up.

The lines are read on a thread of their own (:class:`StandardInput`, with ``os.read``),
so the match loop asks (:meth:`PersonChooser.ask`) and then polls, and goes on reading
the chain and the broker while the person thinks.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from collections.abc import Callable

from chips_client.asking import Question
from chips_client.narration import clock_time, deadline_text, duration, grid, seconds_left, xo_prompt
from client_core.errors import InvalidInput
from rps_tp.game import THROWS
from xo_core.text import printable

COUNTDOWN_STEP_SECONDS = 5
"""A challenge's countdown on the prompt line is redrawn this often, then every second for the last few."""


class StandardInput:
    """Lines from file descriptor 0, read with ``os.read``: the reading thread then holds none of ``sys.stdin``'s
    locks, which an interpreter exiting while that thread waits on the keyboard would otherwise wait for."""

    def __init__(self, fd: int = 0) -> None:
        self.fd = fd
        self.buffer = b""

    def readline(self) -> str:
        """The next line, with its newline; "" at the end of the input."""
        while b"\n" not in self.buffer:
            chunk = os.read(self.fd, 4096)
            if not chunk:
                line, self.buffer = self.buffer, b""
                return line.decode("utf-8", "replace")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", "replace") + "\n"


class PersonChooser:
    """A person's moves, one per line, read on a thread of its own so the match never waits on the keyboard.

    At a terminal the question is shown when asked (the board drawn as ``xo play`` draws it), an illegal
    answer is asked again, a challenge's deadline is counted down on the prompt line, and a question withdrawn
    says why; from a pipe the lines are the moves in order, and one that is not a move is an error.
    """

    def __init__(self, read: Callable[[], str] | None = None, interactive: bool | None = None,
                 clock: Callable[[], float] = time.time) -> None:  # fmt: skip
        self.read, self.clock = read or StandardInput().readline, clock
        self.interactive = sys.stdin.isatty() if interactive is None else interactive
        self.lines: queue.Queue[str | None] = queue.Queue()
        self._reader: threading.Thread | None = None
        self._question: Question | None = None
        self._counted: int | None = None

    def _read_lines(self) -> None:
        while line := self.read():
            self.lines.put(line)
        self.lines.put(None)

    def ask(self, question: Question) -> None:
        """Show the question (at a terminal) and start reading, if not yet."""
        if self._reader is None:
            self._reader = threading.Thread(target=self._read_lines, name="chips play: input", daemon=True)
            self._reader.start()
        self._question = question
        self._counted = None
        if self.interactive:
            if question.deadline is not None:
                print(self._urgency(question), flush=True)
            print(self._prompt(question), end="", flush=True)

    def answer(self) -> int | str | None:
        """The move typed, once a line came and it is legal; None while none has (the countdown goes on)."""
        question = self._question
        if question is None:
            return None
        try:
            line = self.lines.get_nowait()
        except queue.Empty:
            self._count_down(question)
            return None
        if line is None:
            raise InvalidInput("the input ended before the match did")
        text = line.strip().lower()
        move = _move(question, text)
        if move is not None:
            self._question = None
            return move
        if not self.interactive:
            what = f"a free space (1-9) on the board:\n{grid(question.board)}" if question.game == "xo" else (
                "rock, paper or scissors")  # fmt: skip
            raise InvalidInput(f"{printable(text)!r} is not {what}")
        if question.game == "xo":
            print(f"{printable(text)!r} is not a free space: choose a number the board shows")
        else:
            print(f"{printable(text)!r} is not rock, paper or scissors")
        print(self._prompt(question), end="", flush=True)
        return None

    def withdraw(self, reason: str) -> None:
        """Drop the question, saying why at a terminal."""
        if self._question is not None and self.interactive:
            print(f"\n(no longer asked: {printable(reason)})", flush=True)
        self._question = None

    def _prompt(self, question: Question) -> str:
        if question.game == "xo":
            text = xo_prompt(question.board, question.mark)
        else:
            text = "your throw (rock, paper, scissors): "
        if question.deadline is None:
            return text
        left = seconds_left(question.deadline, self.clock())
        return text[: -len(": ")] + f" [{duration(left)} left]: "

    def _urgency(self, question: Question) -> str:
        assert question.deadline is not None
        now = self.clock()
        line = f"!!! answer the challenge: your move must be on chain by {deadline_text(question.deadline, now)}"
        if question.computer_at is not None:
            line += f"; the computer plays it for you at {clock_time(question.computer_at, now)} if you have not"
        return line + " !!!"

    def _count_down(self, question: Question) -> None:
        """At a terminal, the prompt line shows the seconds left, redrawn every few seconds."""
        if not self.interactive or question.deadline is None:
            return
        left = seconds_left(question.deadline, self.clock())
        step = COUNTDOWN_STEP_SECONDS if left > 2 * COUNTDOWN_STEP_SECONDS else 1
        if self._counted is not None and self._counted - left < step:
            return
        self._counted = left
        last_line = self._prompt(question).rsplit("\n", 1)[-1]
        print(f"\r{last_line}\x1b[K", end="", flush=True)


def _move(question: Question, text: str) -> int | str | None:
    """The move ``text`` names if it answers ``question``: a free space (1-9), or a throw."""
    if question.game == "xo":
        if text.isascii() and text.isdigit() and 1 <= int(text) <= 9 and question.board[int(text) - 1] == "-":
            return int(text)
        return None
    return text if text in THROWS else None
