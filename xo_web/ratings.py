"""The leaderboard the server keeps: every player's rating, read from the chain once, then kept current block by block.

At start the server reads every rated game up to the newest block, as ``xo ratings``
does (:mod:`client_core.results_reader`, with the same cache when ``xo web`` runs, so a
chain read by either is not read again), rates them in a worker thread, and then follows
the chain with an :class:`client_core.follow.AsyncFollower` of its own under the rated
families' prefixes. Each block that finishes a game updates every pool (all games, and
each family's) in chain order, so the table stays the one ``xo ratings`` would print,
and every page hears a ``ratings`` event (``{"block", "games"}``) and asks for the table
again (``GET /api/ratings?game=xo``). A chain replaced or a REST API lost: read again
(after a pause), as the lobby's follower does; until then the last table stays.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from chips_client import results as chips_results
from client_core.blocks import BlockRef, ChainChanged
from client_core.errors import Unavailable
from client_core.follow import AsyncFollower
from client_core.keys import KeyNames
from client_core.ratings import FAMILIES, Ratings, system
from client_core.rest import RestClient
from client_core.results_book import ResultBook
from client_core.results_reader import load_book, read_to_head, save_book
from client_core.runner import warn
from rps_client import results as rps_results
from xo_client import results as xo_results
from xo_web.errors import bad_request
from xo_web.views import shown_name

RATED: Final = (xo_results.FAMILY, rps_results.FAMILY, chips_results.FAMILY)
"""The families ``xo ratings`` rates (tests/xo_web/test_ratings.py checks the two lists agree)."""
RETRY_SECONDS: Final = 5.0
POOLS: Final = (None, *FAMILIES)
"""Every game together, then each family's alone."""

Publish = Callable[[dict[str, Any]], None]


class Leaderboard:
    """Ratings of the chain at ``rest_url``; :meth:`run` until cancelled, :meth:`view` for a page."""

    def __init__(
        self,
        rest_url: str,
        auth: tuple[str, str] | None,
        publish: Publish,
        *,
        cache: Path | None = None,
        trace: Callable[[str], None] | None = None,
    ) -> None:
        self.rest_url, self.auth, self.publish, self.cache, self.trace = rest_url, auth, publish, cache, trace
        self.book: ResultBook | None = None
        self.pools: dict[str | None, Ratings] = {}
        self.message: str | None = "reading the chain's games"
        self.rows: dict[str, dict[str, Any]] = {}
        """Each player's row of the table of staked matches, by key: the rating the offers list shows (as ``chips
        offers`` does)."""

    async def run(self) -> None:
        """Read the chain, then follow it, for as long as the server runs.

        A REST API lost or a chain replaced is said once, by the lobby's follower, which meets it too; here it
        is the reason a page's table is not ready (``message``).
        """
        while True:
            try:
                await self.follow()
            except ChainChanged:
                self.message = "the chain was replaced: reading its games afresh"
            except Unavailable as error:
                self.message = f"cannot read the chain: {error.message}"
                await asyncio.sleep(RETRY_SECONDS)

    async def follow(self) -> None:
        book, pools = await asyncio.to_thread(self.read)
        self.book, self.pools, self.message = book, pools, None
        self.tell(book)
        assert book.cursor is not None
        async with AsyncFollower(
            self.rest_url, book.prefixes, after=book.cursor, auth=self.auth, trace=self.trace
        ) as follower:
            async for block in follower:
                found, problems = book.apply(block)
                for problem in problems:
                    warn("xo", f"ratings: skipped: {problem}")
                if found:
                    for pool in pools.values():
                        pool.add(found)
                    self.tell(book)

    def read(self) -> tuple[ResultBook, dict[str | None, Ratings]]:
        """The book up to the newest block (from the cache on), and every pool rated (from the saved ones on)."""
        with RestClient(self.rest_url, auth=self.auth, trace=self.trace) as client:
            book, problems = read_to_head(client, load_book(self.cache, RATED))
        for problem in problems:
            warn("xo", f"ratings: skipped: {problem}")
        pools = {family: Ratings.resumed(family, book.results, book.pools.get(family or "all")) for family in POOLS}
        for family, pool in pools.items():
            book.pools[family or "all"] = pool.state(len(book.results))
        if why := save_book(self.cache, book):
            warn("xo", why)
        return book, pools

    def tell(self, book: ResultBook) -> None:
        pool = self.pools.get(chips_results.FAMILY.name)
        if pool is not None:
            self.rows = {row.key: row.as_json(rank) for rank, row in enumerate(pool.standings(), start=1)}
        cursor = book.cursor
        self.publish({"block": None if cursor is None else cursor.block_num, "games": len(book.results)})

    def rating_of(self, key: str) -> dict[str, Any] | None:
        """``key``'s row of the table of staked matches (rank, rating, deviation, games...), or None: none played."""
        return self.rows.get(key)

    def view(self, game: str | None, names: KeyNames) -> dict[str, Any]:
        """``GET /api/ratings``: one pool's table, each row with the player's key and name (if the keys name it)."""
        if game not in POOLS:
            raise bad_request(f"game must be one of {', '.join(FAMILIES)} (or absent, for every game), not {game!r}")
        pool, cursor = self.pools.get(game), self.book.cursor if self.book is not None else None
        rows = [] if pool is None else pool.standings()
        return {
            "ready": pool is not None,
            "message": self.message,
            "block": None if cursor is None else block_json(cursor),
            "game": game or "all",
            "games": 0 if pool is None else pool.count,
            "system": system(),
            "players": [
                {**standing.as_json(rank), "name": shown_name(standing.key, names)}
                for rank, standing in enumerate(rows, start=1)
            ],
        }


def block_json(block: BlockRef) -> dict[str, Any]:
    return {"num": block.block_num, "id": block.block_id}
