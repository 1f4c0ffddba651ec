"""Every XO game on the chain as of one block, kept up to date block by block. Pure: no I/O.

The server reads the games once (every entry under the XO namespace as of a block)
and then applies each later block's state changes to a :class:`xo_client.game_book.GameBook`,
the book ``xo watch``, ``xo play`` and ``xo bot`` keep: :mod:`xo_client.changes`
says what each change did (created, a space taken, deleted). What is not XO data is
returned as notes, for the server to report.
"""

from __future__ import annotations

from collections.abc import Iterable

from client_core.blocks import BlockChanges, BlockRef
from xo_client.changes import Change
from xo_client.game_book import GameBook
from xo_client.games import Game
from xo_tp.family import game_address


class Lobby:
    """The games as of :attr:`block` (None until the first read)."""

    def __init__(self) -> None:
        self.block: BlockRef | None = None
        self._problems: list[str] = []
        self._book = GameBook(self._problems.append)

    def reset(self, block: BlockRef, entries: Iterable[tuple[str, bytes]]) -> list[str]:
        """Start afresh from the state entries as of ``block``; returns a note per entry that is not XO data."""
        self._book.load(entries)
        self.block = block
        return self._taken_problems()

    def apply(self, block: BlockChanges) -> tuple[list[Change], list[str]]:
        """What ``block`` did to the games, in address order, and a note per changed entry that is not XO data."""
        changes = self._book.apply(block)
        self.block = block.ref
        return changes, self._taken_problems()

    def games(self) -> list[Game]:
        """Every game, by name."""
        return self._book.games()

    def game(self, name: str) -> Game | None:
        return self._book.game(name, game_address(name))

    def _taken_problems(self) -> list[str]:
        problems = list(self._problems)
        self._problems.clear()
        return problems
