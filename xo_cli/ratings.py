"""``xo ratings [--game xo|rps|chips] [--json] [--top N]``: every player's rating, computed from the chain alone.

The games are read by :mod:`client_core.results_reader` (incrementally: the first read
follows the chain from its genesis block and is cached, later ones read only the new
blocks), each family's finished games by its own client library's pure reader, and rated
by :mod:`client_core.ratings` (openskill). docs/ratings.md tells what counts and how to
check a table by hand.

The one place family code reads another family's: a rating spans every game a player
played, so the command takes the rps and chips readers of finished games too (pinned in
tests/packaging/test_boundaries.py with that reason).
"""

from __future__ import annotations

import argparse
import json
from typing import Final

from chips_client import results as chips_results
from client_core.caller import Caller
from client_core.keys import NO_NAMES, KeyNames, key_label
from client_core.ratings import ORDER_WORDS, PROVISIONAL_WORDS, TABLE_PLACES, Ratings, Standing, system
from client_core.results_book import ResultBook
from client_core.results_reader import cache_path, load_book, read_to_head, save_book
from client_core.runner import notice, warn
from client_core.tables import table
from rps_client import results as rps_results
from xo_client import results as xo_results
from xo_core.text import counted

RATED: Final = (xo_results.FAMILY, rps_results.FAMILY, chips_results.FAMILY)
"""Every family whose games are rated: XO games, rps games, and staked matches (chips channels)."""
HEADINGS: Final = ("RANK", "PLAYER", "SCORE", "RATING", "DEVIATION", "GAMES", "WINS", "LOSSES", "DRAWS")
MAX_PROBLEMS_SHOWN: Final = 5


def ratings(args: argparse.Namespace) -> int:
    """Read the chain's games (from the cache on), rate them (from the cached ratings on), print the table."""
    caller = Caller.of(args)
    with caller.where.rest_client() as client:
        path = cache_path(client.base_url)
        cached = load_book(path, RATED)
        read_from = cached.cursor
        book, problems = read_to_head(client, cached, on_notice=lambda line: notice("xo", line))
    for problem in problems[:MAX_PROBLEMS_SHOWN]:
        warn("xo", f"skipped: {problem}")
    if len(problems) > MAX_PROBLEMS_SHOWN:
        warn("xo", f"skipped {len(problems) - MAX_PROBLEMS_SHOWN} more entries that do not decode")
    pool = args.game or "all"
    saved = book.pools.get(pool)
    rating = Ratings.resumed(args.game, book.results, saved)
    book.pools[pool] = rating.state(len(book.results))
    if (book is not cached or book.cursor != read_from or book.pools[pool] != saved) and (why := save_book(path, book)):
        warn("xo", why)
    standings = rating.standings()
    if args.top is not None:
        standings = standings[: args.top]
    if args.format == "json":
        print(json.dumps(ratings_json(book, args.game, standings), indent=2))
    else:
        print(ratings_text(book, args.game, standings, caller.who.key_names()))
    return 0


def games_counted(book: ResultBook, game: str | None) -> int:
    """How many of the book's games are rated in the pool of ``game`` (None: every game)."""
    return sum(1 for result in book.results if game is None or result.family == game)


def ratings_json(book: ResultBook, game: str | None, standings: list[Standing]) -> dict[str, object]:
    """The ``--json`` document: the block read to, which games, the system, and every row with its full key."""
    assert book.cursor is not None
    return {
        "block": {"num": book.cursor.block_num, "id": book.cursor.block_id},
        "game": game or "all",
        "games": games_counted(book, game),
        "system": system(),
        "players": [standing.as_json(rank) for rank, standing in enumerate(standings, start=1)],
    }


def ratings_text(book: ResultBook, game: str | None, standings: list[Standing], names: KeyNames = NO_NAMES) -> str:
    """A heading line, then the table: players named from the key directory, numbers to two places."""
    assert book.cursor is not None
    which = {None: "XO, rps and staked game", "xo": "XO game", "rps": "rps game", "chips": "staked game"}[game]
    heading = f"ratings as of block {book.cursor.block_num}: {counted(games_counted(book, game), which)} (openskill)"
    if not standings:
        return f"{heading}\nno rated games yet"
    rows = [HEADINGS] + [row(rank, standing, names) for rank, standing in enumerate(standings, start=1)]
    marked = f"; {PROVISIONAL_WORDS}" if any(standing.provisional for standing in standings) else ""
    return f"{heading}\n{table(rows)}\n({ORDER_WORDS}{marked})"


def row(rank: int, standing: Standing, names: KeyNames) -> tuple[str, ...]:
    return (
        str(rank),
        key_label(standing.key, names),
        f"{standing.ordinal:.{TABLE_PLACES}f}",
        f"{standing.rating:.{TABLE_PLACES}f}" + ("?" if standing.provisional else ""),
        f"{standing.deviation:.{TABLE_PLACES}f}",
        str(standing.games),
        str(standing.wins),
        str(standing.losses),
        str(standing.draws),
    )
