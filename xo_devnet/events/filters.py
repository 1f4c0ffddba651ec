"""Event subscriptions and their filters, matched as a Sawtooth 1.x validator matches them.

An event is in a subscription when its ``event_type`` equals the subscription's and it
passes every filter. A filter looks only at the event's attributes whose key is the
filter's ``key`` (an event may carry several with one key, a ``sawtooth/state-delta``
one ``address`` per changed address):

- ``SIMPLE_ANY``: one of them has exactly the value ``match_string``;
- ``SIMPLE_ALL``: none has another value (so an event without the key passes);
- ``REGEX_ANY``: ``match_string`` is found (a search, not a full match) in one of them;
- ``REGEX_ALL``: it is found in every one of them (an event without the key passes).

``FILTER_TYPE_UNSET`` (or any other number) and a pattern that does not compile are
an invalid filter, as for the validator. Regular expressions use Python's syntax, as
the validator's do, but run under the ``regex`` engine with a time limit per search:
a client's pattern is applied to attribute values players choose (game names), and a
pattern that backtracks catastrophically would otherwise stall the ledger's one event
loop. A search over the limit raises ``FilterTimeout``, and so do all the searches of
one subscriber over one block together once over theirs (many cheap searches, an
``address`` attribute per changed address, must not add up to a stall either). The size of a request is
bounded for the same reason (``MAX_SUBSCRIPTIONS`` and the like); Sawtooth has no such
bounds.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import regex

from xo_core.protobuf.events_pb2 import Event, EventFilter, EventSubscription

MAX_SUBSCRIPTIONS = 64
MAX_FILTERS = 16
MAX_PATTERN_CHARS = 1024
REGEX_TIMEOUT_SECONDS = 0.01
"""Longest one search of one attribute value may take; legitimate patterns take microseconds."""
REGEX_BUDGET_SECONDS = 0.02
"""Longest all the searches for one subscriber over one block's events may take together."""


class InvalidFilter(ValueError):
    """A subscription the validator would refuse with INVALID_FILTER (or one over our size bounds)."""


class FilterTimeout(Exception):
    """A regular expression took longer than ``REGEX_TIMEOUT_SECONDS``, or the searches their budget."""


def deadline() -> float:
    """When the searches for one subscriber over one block must be done (``time.monotonic`` seconds)."""
    return time.monotonic() + REGEX_BUDGET_SECONDS


@dataclass(frozen=True)
class _Filter:
    key: str
    match_string: str
    kind: int
    pattern: regex.Pattern[str] | None

    def passes(self, attributes: Sequence[Event.Attribute], ends: float) -> bool:
        values = [attribute.value for attribute in attributes if attribute.key == self.key]
        if self.kind == EventFilter.SIMPLE_ANY:
            return self.match_string in values
        if self.kind == EventFilter.SIMPLE_ALL:
            return all(value == self.match_string for value in values)
        if self.kind == EventFilter.REGEX_ANY:
            return any(self._found(value, ends) for value in values)
        return all(self._found(value, ends) for value in values)

    def _found(self, value: str, ends: float) -> bool:
        assert self.pattern is not None
        left = ends - time.monotonic()
        if left <= 0:
            raise FilterTimeout(
                f"the patterns took over {REGEX_BUDGET_SECONDS * 1000:g} ms on one block's events together"
            )
        try:
            return self.pattern.search(value, timeout=min(REGEX_TIMEOUT_SECONDS, left)) is not None
        except TimeoutError:
            raise FilterTimeout(
                f"the pattern {self.match_string!r} took over {REGEX_TIMEOUT_SECONDS * 1000:g} ms"
                f" on a value of {len(value)} characters, or past the block's {REGEX_BUDGET_SECONDS * 1000:g} ms"
            ) from None


@dataclass(frozen=True)
class Subscription:
    """One ``EventSubscription``, checked and compiled."""

    event_type: str
    filters: tuple[_Filter, ...]

    def matches(self, event: Event, ends: float) -> bool:
        """Whether ``event`` is in this subscription; may raise FilterTimeout (searches past ``ends``)."""
        return event.event_type == self.event_type and all(
            item.passes(event.attributes, ends) for item in self.filters
        )


@dataclass(frozen=True)
class Subscriptions:
    """What one client subscribed to; ``key`` is equal for equal requests, so their results can be shared."""

    items: tuple[Subscription, ...]
    key: bytes

    @property
    def event_types(self) -> frozenset[str]:
        return frozenset(item.event_type for item in self.items)

    def wants(self, event: Event, ends: float | None = None) -> bool:
        """Whether ``event`` is in any of the subscriptions; may raise FilterTimeout.

        ``ends`` (:func:`deadline`) is shared by all the events of one block; without it the
        event has a budget of its own.
        """
        ends = deadline() if ends is None else ends
        return any(item.matches(event, ends) for item in self.items if item.event_type == event.event_type)


def compile_subscriptions(requested: Sequence[EventSubscription]) -> Subscriptions:
    """Check and compile the subscriptions of a subscribe or get request; raises InvalidFilter."""
    if len(requested) > MAX_SUBSCRIPTIONS:
        raise InvalidFilter(f"too many subscriptions: {len(requested)} (at most {MAX_SUBSCRIPTIONS})")
    items = tuple(
        Subscription(item.event_type, tuple(_compile_filters(item.event_type, item.filters))) for item in requested
    )
    key = b"".join(item.SerializeToString(deterministic=True) + b"\x00" for item in requested)
    return Subscriptions(items, key)


def _compile_filters(event_type: str, filters: Sequence[EventFilter]) -> Iterable[_Filter]:
    if len(filters) > MAX_FILTERS:
        raise InvalidFilter(f"too many filters for {event_type!r}: {len(filters)} (at most {MAX_FILTERS})")
    for item in filters:
        if item.filter_type not in (
            EventFilter.SIMPLE_ANY,
            EventFilter.SIMPLE_ALL,
            EventFilter.REGEX_ANY,
            EventFilter.REGEX_ALL,
        ):
            raise InvalidFilter(f"Unknown filter type: {item.filter_type}")
        pattern = None
        if item.filter_type in (EventFilter.REGEX_ANY, EventFilter.REGEX_ALL):
            pattern = _compile_pattern(item.match_string)
        yield _Filter(item.key, item.match_string, item.filter_type, pattern)


def _compile_pattern(text: str) -> regex.Pattern[str]:
    if len(text) > MAX_PATTERN_CHARS:
        raise InvalidFilter(f"Invalid regular expression: longer than {MAX_PATTERN_CHARS} characters")
    try:
        return regex.compile(text, regex.VERSION0)
    except Exception as error:  # regex.error, and the odd OverflowError or RecursionError on hostile input
        raise InvalidFilter(f"Invalid regular expression: {text}: {error}") from None
