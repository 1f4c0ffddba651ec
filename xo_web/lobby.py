"""Every game of one family on the chain as of one block, kept up to date block by block. Pure: no I/O.

The server reads a family's games once (every entry under its namespace as of a
block), then applies each later block's state changes to the family's game book
(:class:`client_core.game_book.GameBook`, the very book its ``watch`` command keeps:
:class:`xo_client.game_book.GameBook`, :class:`rps_client.game_book.GameBook`), so the
page tells changes exactly as the commands tell them. One lobby serves every family
over two things only the family knows: its book and its addressing. What is not the
family's data is returned as notes, for the server to report.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic

from client_core.blocks import BlockChanges, BlockRef
from client_core.game_book import ChangeT, GameBook, GameT
from rps_client import changes as rps_changes
from rps_client import game_book as rps_book
from rps_tp import family as rps_family
from rps_tp import game as rps_game
from xo_client import changes as xo_changes
from xo_client import game_book as xo_book
from xo_client import games as xo_games
from xo_tp import family as xo_family

BookMaker = Callable[[Callable[[str], None]], GameBook[GameT, ChangeT]]
"""A family's game book, given where to report entries that are not its data."""


class Lobby(Generic[GameT, ChangeT]):
    """One family's games as of :attr:`block` (None until the first read)."""

    def __init__(self, book: BookMaker[GameT, ChangeT], address: Callable[[str], str]) -> None:
        self.block: BlockRef | None = None
        self._problems: list[str] = []
        self._book = book(self._problems.append)
        self._address = address

    def reset(self, block: BlockRef, entries: Iterable[tuple[str, bytes]]) -> list[str]:
        """Start afresh from the state entries as of ``block``; returns a note per entry that is not the family's."""
        self._book.load(entries)
        self.block = block
        return self._taken_problems()

    def apply(self, block: BlockChanges) -> tuple[list[ChangeT], list[str]]:
        """What ``block`` did to the games, in address order, and a note per changed entry that is not the family's."""
        changes = self._book.apply(block)
        self.block = block.ref
        return changes, self._taken_problems()

    def games(self) -> list[GameT]:
        """Every game, by name."""
        return self._book.games()

    def game(self, name: str) -> GameT | None:
        """The game ``name`` as the book holds it now, or None when there is none."""
        return self._book.game(name, self._address(name))

    def _taken_problems(self) -> list[str]:
        problems = list(self._problems)
        self._problems.clear()
        return problems


XoLobby = Lobby[xo_games.Game, xo_changes.Change]
RpsLobby = Lobby[rps_game.Game, rps_changes.Change]


def xo_lobby() -> XoLobby:
    """The XO games, told as ``xo watch`` tells them."""
    return Lobby(xo_book.GameBook, xo_family.game_address)


def rps_lobby() -> RpsLobby:
    """The rps games, told as ``rps watch`` tells them."""
    return Lobby(rps_book.GameBook, rps_family.game_address)
