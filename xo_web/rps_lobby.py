"""Every rps game on the chain as of one block, kept up to date block by block. Pure: no I/O.

The rps twin of :mod:`xo_web.lobby`: games by state address (names can share one),
each block's changes told by :func:`rps_cli.changes.changes_between` exactly as ``rps
watch`` tells them (joined, ready, committed, revealed, a round won, the end). State
that is not an rps bucket is returned as notes, for the server to report.
"""

from __future__ import annotations

from collections.abc import Iterable

from client_core.answers import StateChange
from rps_cli.changes import Change, changes_between
from rps_cli.games import decode_games, find_game
from rps_tp.family import game_address
from rps_tp.game import Game


class RpsLobby:
    """The rps games, by address."""

    def __init__(self) -> None:
        self._by_address: dict[str, list[Game]] = {}

    def reset(self, entries: Iterable[tuple[str, bytes]]) -> list[str]:
        """Start afresh from the state entries under the rps namespace; a note per entry that is not rps data."""
        self._by_address = {}
        problems: list[str] = []
        for address, data in entries:
            games, found = decode_games(address, data)
            problems.extend(found)
            if games:
                self._by_address[address] = games
        return problems

    def apply(self, changes: Iterable[StateChange]) -> tuple[list[Change], list[str]]:
        """What one block's state changes under the rps namespace did, in address order, and notes on bad data."""
        told: list[Change] = []
        problems: list[str] = []
        for change in sorted(changes, key=lambda change: change.address):
            after: list[Game] = []
            if change.type == "SET":
                after, found = decode_games(change.address, change.value)
                problems.extend(found)
            told.extend(changes_between(self._by_address.pop(change.address, []), after))
            if after:
                self._by_address[change.address] = after
        return told, problems

    def games(self) -> list[Game]:
        """Every rps game, by name."""
        found = (game for games in self._by_address.values() for game in games)
        return sorted(found, key=lambda game: game.name)

    def game(self, name: str) -> Game | None:
        return find_game(self._by_address.get(game_address(name), []), name)
