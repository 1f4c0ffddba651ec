"""How ``xo play`` shows a game to the person playing it: a redrawn board on a terminal, one line per event elsewhere.

Both screens get the same calls from :mod:`xo_cli.play`, in the order things happen:
the game as play begins, each block's moves (the very lines of ``xo watch``, from
:mod:`xo_cli.feed`), notes (a refusal, "not your turn"), the prompt when it is the
player's move, what the other side is waiting for, and the last line. The board is
:func:`xo_cli.render.game_card`'s; game names and keys reach the screen only through
:mod:`xo_cli.render`, :mod:`xo_cli.feed` and :func:`xo_core.text.game_label`, which
escape them; and every line is passed through :func:`xo_core.text.printable` once more as it is
written (``escape_backslashes=False``, so text already escaped is left as it is), since some of it comes from
the server: a validator's reason for refusing a move, a notice quoting the REST API.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Protocol

from client_core.blocks import BlockRef
from client_core.keys import KeyNames
from client_core.runner import notice
from xo_cli import feed, render
from xo_client.changes import Change
from xo_client.games import Game
from xo_client.outcome import outcome_text
from xo_core.text import game_label, printable
from xo_tp import rules

CLEAR_SCREEN = "\x1b[H\x1b[2J"
RECENT_LINES = 6
"""Move lines kept under the redrawn board."""
SPACES_HINT = "1-9 or A1..C3, q leaves"


class Screen(Protocol):
    """Where ``xo play`` shows what happens."""

    def start(self, block: BlockRef, game: Game | None, lines: list[str]) -> None:
        """The game as play begins (None: not created yet), and who plays."""

    def changes(self, block: BlockRef, changes: list[Change]) -> None:
        """Moves (and creates, deletes) committed in ``block``."""

    def say(self, text: str) -> None:
        """A note for the player: a refusal, "not your turn", the computer's trouble."""

    def notice(self, text: str) -> None:
        """A line about the connection to the REST API (lost, back, polling)."""

    def progress(self, text: str) -> None:
        """What is going on while the player waits (a move sent): for a person watching, not for a script."""

    def prompt(self, game: Game, mark: str) -> None:
        """The player's move is due, as ``mark``."""

    def waiting(self, game: Game, text: str) -> None:
        """The other side's move is due: ``text`` says whose."""

    def finish(self, text: str) -> None:
        """The last line: the result, or that the player left."""


def line_of(text: str) -> str:
    """``text`` as one line a terminal shows as it is: controls escaped, escapes already made kept."""
    return printable(text, escape_backslashes=False)


def prompt_text(game: Game, mark: str) -> str:
    return f"{game_label(game.name)}: your move as {mark} ({SPACES_HINT})"


def result_text(game: Game, you: str, names: KeyNames = render.NO_NAMES) -> str:
    """How the game ended, for the player ``you``: ``you won``, ``you lost: O won (...)``, ``a tie ...``."""
    label = game_label(game.name)
    winner = {rules.P1_WIN: game.player1, rules.P2_WIN: game.player2}.get(game.state)
    if winner is None:
        return f"{label} is over: {outcome_text(game, names) or game.state}"
    mark = rules.PLAYER_1_MARK if game.state == rules.P1_WIN else rules.PLAYER_2_MARK
    if winner == you:
        return f"{label} is over: you won, as {mark}"
    return f"{label} is over: you lost: {outcome_text(game, names)}"


class LineScreen:
    """Without a terminal: one line per event on stdout, flushed at once for the script reading it."""

    def __init__(self, names: KeyNames) -> None:
        self.names = names

    def start(self, block: BlockRef, game: Game | None, lines: list[str]) -> None:
        for line in lines:
            self.say(line)
        if game is not None:
            self.say(feed.change_line(block, feed.snapshot(game.name, game), self.names))

    def changes(self, block: BlockRef, changes: list[Change]) -> None:
        """Print one line per change in the block."""
        for change in changes:
            self.say(feed.change_line(block, change, self.names))

    def say(self, text: str) -> None:
        print(line_of(text), flush=True)

    def notice(self, text: str) -> None:
        notice("xo", text)

    def progress(self, text: str) -> None:
        pass

    def prompt(self, game: Game, mark: str) -> None:
        self.say(prompt_text(game, mark))

    def waiting(self, game: Game, text: str) -> None:
        self.say(f"{game_label(game.name)}: waiting: {text}")

    def finish(self, text: str) -> None:
        self.say(text)


class TerminalScreen:
    """On a terminal: the board redrawn at every event, the last moves under it, then a note and the prompt."""

    def __init__(self, you: str, names: KeyNames, write: Callable[[str], object] | None = None) -> None:
        self.you = you
        self.names = names
        self.write = write if write is not None else sys.stdout.write
        self.game: Game | None = None
        self.recent: list[str] = []
        self.note = ""
        self.status = ""

    def start(self, block: BlockRef, game: Game | None, lines: list[str]) -> None:
        self.game = game
        self.recent = list(lines)
        self.draw()

    def changes(self, block: BlockRef, changes: list[Change]) -> None:
        """Add the block's changes to the recent lines and redraw the board with the newest game."""
        self.recent = (self.recent + [feed.change_line(block, change, self.names) for change in changes])[
            -RECENT_LINES:
        ]
        self.game = changes[-1].game
        self.note = ""
        self.draw()

    def say(self, text: str) -> None:
        self.note = line_of(text)
        self.draw()

    def notice(self, text: str) -> None:
        self.say(f"xo: {text}")

    def progress(self, text: str) -> None:
        self.status = ""
        self.say(text)

    def prompt(self, game: Game, mark: str) -> None:
        self.game = game
        self.status = f"Your move as {mark} ({SPACES_HINT}): "
        self.draw()

    def waiting(self, game: Game, text: str) -> None:
        self.game = game
        self.status = f"Waiting: {line_of(text)} (q or Ctrl-C leaves)\n"
        self.draw()

    def finish(self, text: str) -> None:
        self.status = line_of(text) + "\n"
        self.draw()

    def draw(self) -> None:
        card = render.game_card(self.game, self.you, self.names) + "\n\n" if self.game is not None else ""
        moves = "".join(line + "\n" for line in self.recent)
        note = f"\n{self.note}\n" if self.note else "\n"
        self.write(f"{CLEAR_SCREEN}{card}{moves}{note}{self.status}")
        sys.stdout.flush()
