"""The XO games at some state addresses, as of one block, kept current block by block.

Every command that follows games live (``xo watch``, ``xo play``, ``xo bot``) reads
the games as of a block, then applies each later block's state changes, and needs
to know what happened in between: :mod:`xo_cli.game_changes` works the moves out
from the entries before and after. Names share addresses (a bucket), so the book
keeps whole buckets by address. Entries that do not decode are reported through
``on_problem`` and left out, as ``xo list`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from client_core.blocks import BlockChanges
from xo_cli.game_changes import GameChange, changes_between
from xo_cli.games import Game, decode_games, find_game


class GameBook:
    """Games by address; :meth:`apply` moves them on by one block and says what changed."""

    def __init__(self, on_problem: Callable[[str], None]) -> None:
        self.buckets: dict[str, list[Game]] = {}
        self._on_problem = on_problem

    def load(self, entries: Iterable[tuple[str, bytes]]) -> None:
        """Start afresh from ``(address, data)`` pairs read as of one block."""
        self.buckets = {address: self.decoded(address, data) for address, data in entries}

    def apply(self, block: BlockChanges) -> list[GameChange]:
        """The block's changes applied; what happened to each game, addresses in order, moves in play order."""
        changes: list[GameChange] = []
        for change in sorted(block.changes, key=lambda change: change.address):
            after = self.decoded(change.address, change.value) if change.type == "SET" else []
            changes.extend(changes_between(self.buckets.pop(change.address, []), after))
            if after:
                self.buckets[change.address] = after
        return changes

    def game(self, name: str, address: str) -> Game | None:
        """The game called ``name`` (stored at ``address``), or None if there is none now."""
        return find_game(self.buckets.get(address, []), name)

    def games(self) -> list[Game]:
        """Every game in the book, by name."""
        return sorted((game for bucket in self.buckets.values() for game in bucket), key=lambda game: game.name)

    def decoded(self, address: str, data: bytes) -> list[Game]:
        games, problems = decode_games(address, data)
        for problem in problems:
            self._on_problem(problem)
        return games
