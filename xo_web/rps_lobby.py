"""Every rps game on the chain as of one block, kept up to date block by block. Pure: no I/O.

The rps twin of :mod:`xo_web.lobby`: the server reads the games once (every entry
under the rps namespace as of a block), then applies each later block's state changes
to a :class:`rps_client.game_book.GameBook`, the book ``rps watch`` keeps, so the page
tells changes exactly as ``rps watch`` tells them. State that is not an rps bucket is
returned as notes, for the server to report.
"""

from __future__ import annotations

from collections.abc import Iterable

from client_core.blocks import BlockChanges
from rps_client.changes import Change
from rps_client.game_book import GameBook
from rps_tp.family import game_address
from rps_tp.game import Game


class RpsLobby:
    """The rps games, by address."""

    def __init__(self) -> None:
        self._problems: list[str] = []
        self._book = GameBook(self._problems.append)

    def reset(self, entries: Iterable[tuple[str, bytes]]) -> list[str]:
        """Start afresh from the state entries under the rps namespace; a note per entry that is not rps data."""
        self._book.load(entries)
        return self._taken_problems()

    def apply(self, block: BlockChanges) -> tuple[list[Change], list[str]]:
        """What ``block``'s state changes under the rps namespace did, in address order, and notes on bad data."""
        return self._book.apply(block), self._taken_problems()

    def games(self) -> list[Game]:
        """Every rps game, by name."""
        return self._book.games()

    def game(self, name: str) -> Game | None:
        return self._book.game(name, game_address(name))

    def _taken_problems(self) -> list[str]:
        problems = list(self._problems)
        self._problems.clear()
        return problems
