"""Every XO game on the chain as of one block, kept up to date block by block. Pure: no I/O.

The server reads the games once (every entry under the XO namespace as of a block)
and then applies each later block's state changes; :mod:`xo_cli.game_changes` says
what each change did (created, a space taken, deleted), exactly as ``xo watch``
tells it. Games are kept by state address, since names can share one.
"""

from __future__ import annotations

from collections.abc import Iterable

from client_core.blocks import BlockChanges, BlockRef
from xo_cli.game_changes import GameChange, changes_between
from xo_cli.games import Game, decode_games
from xo_tp.family import game_address


class Lobby:
    """The games as of :attr:`block` (None until the first read)."""

    def __init__(self) -> None:
        self.block: BlockRef | None = None
        self._by_address: dict[str, list[Game]] = {}

    def reset(self, block: BlockRef, entries: Iterable[tuple[str, bytes]]) -> list[str]:
        """Start afresh from the state entries as of ``block``; returns a note per entry that is not XO data."""
        self.block = block
        self._by_address = {}
        problems: list[str] = []
        for address, data in entries:
            games, found = decode_games(address, data)
            problems.extend(found)
            if games:
                self._by_address[address] = games
        return problems

    def apply(self, block: BlockChanges) -> tuple[list[GameChange], list[str]]:
        """What ``block`` did to the games, in address order, and a note per changed entry that is not XO data."""
        changes: list[GameChange] = []
        problems: list[str] = []
        for change in sorted(block.changes, key=lambda change: change.address):
            after: list[Game] = []
            if change.type == "SET":
                after, found = decode_games(change.address, change.value)
                problems.extend(found)
            changes.extend(changes_between(self._by_address.pop(change.address, []), after))
            if after:
                self._by_address[change.address] = after
        self.block = block.ref
        return changes, problems

    def games(self) -> list[Game]:
        """Every game, by name (then address)."""
        found = (game for games in self._by_address.values() for game in games)
        return sorted(found, key=lambda game: (game.name, game.address))

    def game(self, name: str) -> Game | None:
        return next((game for game in self._by_address.get(game_address(name), []) if game.name == name), None)
