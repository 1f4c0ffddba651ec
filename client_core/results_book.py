"""Every rated game on a chain up to one block, read off the blocks' state changes: what the ratings are made of.

A :class:`ResultBook` stands on a block (its cursor) and takes each following block's
changes (:class:`client_core.blocks.BlockChanges`, one per address, the block's last).
Each family gives a reader from an address's data to the finished games there
(:class:`client_core.ratings.Finished`); the book remembers which games it has counted at
each address, so a game counts once, in the block it finished in, however often its address
is written again, and again if it is deleted and played anew. A game that finished and was
deleted within one block is never in state between blocks, and is not seen.

Pure, no I/O; the book is saved as JSON (:meth:`ResultBook.as_json`), so reading a long chain
again starts where the last read stopped (:mod:`client_core.results_reader`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any, Final, NamedTuple

from client_core.blocks import BlockChanges, BlockRef
from client_core.ratings import FAMILIES, OUTCOMES, Finished, Result, order_key, placed

FORMAT: Final = 1
"""The saved book's format: a book saved in another is read afresh."""

Reader = Callable[[str, bytes], tuple[list[Finished], list[str]]]
"""A family's reader: the finished games at an address, given its data, and notes on what does not decode."""


class Family(NamedTuple):
    """A family whose games are rated: its name (one of :data:`client_core.ratings.FAMILIES`), prefix and reader."""

    name: str
    prefix: str
    read: Reader


class UnreadableBook(ValueError):
    """A saved book that is not one this code wrote: read the chain afresh."""


class ResultBook:
    """The results of every game finished up to :attr:`cursor` (None: nothing read yet), in chain order."""

    def __init__(self, families: Sequence[Family]) -> None:
        self.families = tuple(families)
        self.cursor: BlockRef | None = None
        self.results: list[Result] = []
        self.seen: dict[str, list[str]] = {}
        """For each address, the idents of the finished games there already counted."""
        self.pools: dict[str, object] = {}
        """Saved ratings by pool (``all``, or a family): :meth:`client_core.ratings.Ratings.state`, kept as is."""

    @property
    def prefixes(self) -> tuple[str, ...]:
        return tuple(family.prefix for family in self.families)

    def apply(self, block: BlockChanges) -> tuple[list[Result], list[str]]:
        """Take the block after the cursor: the results of the games it finished, and notes on what did not decode."""
        found: list[Result] = []
        problems: list[str] = []
        for change in block.changes:
            family = next((family for family in self.families if change.address.startswith(family.prefix)), None)
            if family is None:
                continue
            if change.type != "SET" or not change.value:
                self.seen.pop(change.address, None)
                continue
            finished, notes = family.read(change.address, change.value)
            problems.extend(f"block {block.block_num}: {note}" for note in notes)
            counted = set(self.seen.get(change.address, ()))
            for game in finished:
                if game.ident not in counted:
                    found.extend(placed(block.block_num, family.name, game))
            if finished:
                self.seen[change.address] = [game.ident for game in finished]
            else:
                self.seen.pop(change.address, None)
        found.sort(key=order_key)
        self.results.extend(found)
        self.cursor = block.ref
        return found, problems

    def as_json(self) -> dict[str, Any]:
        """What is saved: the cursor, the results (each as a list) and what was counted where."""
        return {
            "format": FORMAT,
            "families": [family.name for family in self.families],
            "cursor": None if self.cursor is None else list(self.cursor),
            "results": [result.as_list() for result in self.results],
            "seen": self.seen,
            "pools": self.pools,
        }

    def load(self, document: object) -> None:
        """Stand where a saved book stood; :class:`UnreadableBook` unless it is one, for these families."""
        try:
            _check(isinstance(document, dict))
            assert isinstance(document, dict)
            _check(document["format"] == FORMAT)
            _check(document["families"] == [family.name for family in self.families])
            cursor, seen = document["cursor"], document["seen"]
            _check(isinstance(cursor, list) and len(cursor) == 2 and isinstance(cursor[0], str))
            _check(type(cursor[1]) is int)
            results = [_result(item) for item in document["results"]]
            keys = [order_key(result) for result in results]
            _check(all(earlier <= later for earlier, later in pairwise(keys)))
            pools = document.get("pools", {})
            _check(isinstance(pools, dict))
            _check(isinstance(seen, dict))
            _check(all(isinstance(ids, list) and all(isinstance(i, str) for i in ids) for ids in seen.values()))
        except (KeyError, TypeError, ValueError):
            raise UnreadableBook("the saved ratings are not in this version's format") from None
        self.cursor = BlockRef(cursor[0], cursor[1])
        self.results = results
        self.seen = {str(address): list(idents) for address, idents in seen.items()}
        self.pools = dict(pools)


def _check(condition: bool) -> None:
    if not condition:
        raise UnreadableBook("the saved ratings are not in this version's format")


def _result(item: object) -> Result:
    _check(isinstance(item, list) and len(item) == len(Result._fields))
    assert isinstance(item, list)
    block_num, family, game, place, first, second, outcome = item
    _check(type(block_num) is int and type(place) is int and family in FAMILIES and outcome in OUTCOMES)
    _check(all(isinstance(text, str) for text in (game, first, second)))
    return Result(block_num, family, game, place, first, second, outcome)
