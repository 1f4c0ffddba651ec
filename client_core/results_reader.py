"""Reading a chain's rated games up to its newest block, starting where the last read stopped.

The first read of a chain follows it from its genesis block (``client_core.follow``: the
websocket, or ``/blocks`` and ``/receipts`` pages) into a
:class:`client_core.results_book.ResultBook`, and saves the book in the user's cache
(``$XDG_CACHE_HOME/xo/ratings/``, else ``~/.cache/xo/ratings/``), one file per REST API.
Every later read loads it and follows only the blocks since. A chain that no longer holds
the saved block (a ledger started afresh) is read again from its genesis block. A cache
that cannot be read or written costs time, never the answer: the chain is read in full.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from client_core.blocks import ChainChanged
from client_core.rest import RestClient
from client_core.results_book import Family, ResultBook, UnreadableBook

CACHE_ENV = "XDG_CACHE_HOME"


def cache_path(base_url: str, families: str = "") -> Path:
    """Where the book of the chain at ``base_url`` is kept: a file named by the URL's hash, and by ``families`` for a
    book of other families than ``xo ratings``' (a book holds its families' games only)."""
    base = os.environ.get(CACHE_ENV) or os.path.join("~", ".cache")
    digest = hashlib.sha256(base_url.encode("utf-8")).hexdigest()[:24]
    return Path(base).expanduser() / "xo" / "ratings" / f"{digest}{'-' + families if families else ''}.json"


def load_book(path: Path | None, families: Sequence[Family]) -> ResultBook:
    """The book saved at ``path``, or an empty one when there is none (or it is unreadable, or another format)."""
    book = ResultBook(families)
    if path is None:
        return book
    try:
        book.load(json.loads(path.read_bytes()))
    except (OSError, ValueError, UnreadableBook):
        return ResultBook(families)
    return book


def save_book(path: Path | None, book: ResultBook) -> str | None:
    """Save ``book`` at ``path`` whole or not at all (written aside, then renamed); why not, if it could not be."""
    if path is None:
        return None
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".ratings-", suffix=".json")
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(book.as_json(), handle, separators=(",", ":"))
        os.replace(temporary, path)
    except OSError as error:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        return f"the ratings' cache {path} cannot be written ({error.strerror or error}); the next read starts afresh"
    return None


def read_to_head(
    client: RestClient, book: ResultBook, *, on_notice: Callable[[str], None] | None = None
) -> tuple[ResultBook, list[str]]:
    """The book brought up to the chain's newest block (a new one if the chain changed), and notes on bad data.

    Blocking; the follower reconnects by itself through failures that pass.
    """
    try:
        return book, _follow_to_head(client, book, on_notice)
    except ChainChanged:
        fresh = ResultBook(book.families)
        if on_notice is not None:
            on_notice(f"the chain at {client.base_url} is not the one last read; reading it from its genesis block")
        return fresh, _follow_to_head(client, fresh, on_notice)


def _follow_to_head(client: RestClient, book: ResultBook, on_notice: Callable[[str], None] | None) -> list[str]:
    head = client.head_block().ref
    if book.cursor is None:
        book.cursor = client.first_block().ref
    cursor = book.cursor
    if head.block_num < cursor.block_num or (head.block_num == cursor.block_num and head != cursor):
        raise ChainChanged(f"block {cursor.block_num} is not on the chain at {client.base_url} any more")
    problems: list[str] = []
    if head == cursor:
        return problems
    from client_core.follow import Follower  # noqa: PLC0415 - aiohttp, loaded only when there are blocks to read

    with Follower(
        client.base_url, book.prefixes, after=cursor, auth=client.auth, trace=client.trace, on_notice=on_notice
    ) as follower:
        for block in follower:
            problems.extend(book.apply(block)[1])
            if block.block_num >= head.block_num:
                break
    return problems
