"""Paging controls (``start``, ``limit``, ``reverse``) and the paged-list envelope.

Sawtooth pages by position markers, not offsets: ``start`` names the first item of
the page (a state address, a batch or transaction id, or a block number as
``0x%016x``) and ``paging.next_position`` names the first item of the next page, so
pages stay stable while the chain grows. ``paging.next`` is absent on the last page.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from aiohttp import web

from xo_devnet.rest.errors import ApiError
from xo_devnet.rest.urls import build_url

DEFAULT_LIMIT = 1000
"""Items per page when the request names no ``limit``."""

MAX_LIMIT = 1000
"""Largest page served; a larger ``limit`` is lowered to it, as a Sawtooth validator does."""

Item = TypeVar("Item")


@dataclass(frozen=True)
class PagingControls:
    """What the request asked for; ``start`` and ``limit`` are echoed back in ``paging`` as given."""

    start: str | None = None
    limit: int | None = None
    reverse: bool = False

    @property
    def page_size(self) -> int:
        return min(self.limit or DEFAULT_LIMIT, MAX_LIMIT)


@dataclass(frozen=True)
class Page(Generic[Item]):
    """One page: its items, the marker of its first item and that of the next page's (None on the last)."""

    items: list[Item]
    start: str | None
    next_position: str | None


def paging_controls(query: Mapping[str, str], sort_key: str) -> PagingControls:
    """Read ``start``/``limit``/``reverse``; ``sort_key`` is the one key this listing sorts by.

    ``reverse`` with no value, ``true`` or the sort key's name reverses the order (Sawtooth
    clients send the first or the last); ``false`` keeps it; any other key is error 57.
    """
    return PagingControls(
        start=query.get("start"), limit=_limit(query.get("limit")), reverse=_reverse(query.get("reverse"), sort_key)
    )


def take_page(keyed_items: Iterator[tuple[str, Item]], page_size: int) -> Page[Item]:
    """The first ``page_size`` items of an iterator of (marker, item) already positioned at the start."""
    items: list[Item] = []
    start: str | None = None
    for key, item in keyed_items:
        if len(items) == page_size:
            return Page(items, start, key)
        if start is None:
            start = key
        items.append(item)
    return Page(items, start, None)


def paged_envelope(
    request: web.Request, controls: PagingControls, page: Page[Any], data: list[Any], head: str
) -> dict[str, Any]:
    """The ``data``/``head``/``link``/``paging`` body of every list route."""
    paging: dict[str, Any] = {"limit": controls.limit, "start": controls.start}
    if page.next_position is not None:
        paging["next_position"] = page.next_position
        paging["next"] = build_url(request, head=head, start=page.next_position, limit=controls.limit)
    return {
        "data": data,
        "head": head,
        "link": build_url(request, head=head, start=page.start, limit=controls.page_size),
        "paging": paging,
    }


def _limit(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        limit = int(text)
    except ValueError:
        raise ApiError(53) from None
    if limit <= 0:
        raise ApiError(53)
    return limit


def _reverse(text: str | None, sort_key: str) -> bool:
    if text is None or text.lower() == "false":
        return False
    if text.lower() in ("", "true") or text.split(",") == [sort_key]:
        return True
    raise ApiError(57, message=f"This listing sorts only by '{sort_key}': 'reverse={text}' names another key.")
