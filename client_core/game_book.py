"""A family's games at some state addresses, as of one block, kept current block by block.

Every client that follows games live (``xo watch``, ``xo play``, ``rps watch``, the web
page's lobbies) reads the games as of a block, then applies each later block's state
changes, and needs to know what happened in between; only the family knows how its
entries decode and how two versions of a bucket differ, so it hands those two functions
in. Names share addresses (a bucket), so the book keeps whole buckets by address.
Entries that do not decode are reported through ``on_problem`` and left out, as the
``list`` commands do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Generic, Protocol, TypeVar

from client_core.blocks import BlockChanges


class Named(Protocol):
    """A game as the book needs it: findable, and sortable, by its name."""

    @property
    def name(self) -> str: ...


GameT = TypeVar("GameT", bound=Named)
ChangeT = TypeVar("ChangeT")

Decode = Callable[[str, bytes], tuple[list[GameT], list[str]]]
"""``(address, data)`` to the games stored there and a note per entry that is not the family's data."""
Compare = Callable[[Sequence[GameT], Sequence[GameT]], list[ChangeT]]
"""One address's games before a block and after it, to what happened to them, by name."""


class GameBook(Generic[GameT, ChangeT]):
    """Games by address; :meth:`apply` moves them on by one block and says what changed."""

    def __init__(
        self, decode: Decode[GameT], compare: Compare[GameT, ChangeT], on_problem: Callable[[str], None]
    ) -> None:
        self.buckets: dict[str, list[GameT]] = {}
        self._decode = decode
        self._compare = compare
        self._on_problem = on_problem

    def load(self, entries: Iterable[tuple[str, bytes]]) -> None:
        """Start afresh from ``(address, data)`` pairs read as of one block."""
        self.buckets = {address: self.decoded(address, data) for address, data in entries}

    def apply(self, block: BlockChanges) -> list[ChangeT]:
        """The block's changes applied; what happened to each game, addresses in order, each game's changes in order."""
        changes: list[ChangeT] = []
        for change in sorted(block.changes, key=lambda change: change.address):
            after = self.decoded(change.address, change.value) if change.type == "SET" else []
            changes.extend(self._compare(self.buckets.pop(change.address, []), after))
            if after:
                self.buckets[change.address] = after
        return changes

    def game(self, name: str, address: str) -> GameT | None:
        """The game called ``name`` (stored at ``address``, among the names that share it), or None if none now."""
        return next((game for game in self.buckets.get(address, []) if game.name == name), None)

    def games(self) -> list[GameT]:
        """Every game in the book, by name."""
        return sorted((game for bucket in self.buckets.values() for game in bucket), key=lambda game: game.name)

    def decoded(self, address: str, data: bytes) -> list[GameT]:
        games, problems = self._decode(address, data)
        for problem in problems:
            self._on_problem(problem)
        return games
