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
an invalid filter, as for the validator. Where we differ: patterns run under RE2
(Google's engine, the ``google-re2`` bindings), whose searches take time linear in the
value searched, whatever the pattern; the validator uses Python's ``re``, which
backtracks, and a client's pattern is applied to values players choose (game names):
``^(a|aa)+$`` against forty ``a`` and a ``!`` would run for hours. Ordinary patterns
mean the same in both (but RE2's ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII,
Python's Unicode). RE2 refuses to compile what no linear-time engine can run
(backreferences, lookaround) and a few spellings it lacks (possessive repetition,
Python's ``\\Z`` where RE2 has ``\\z``), and so do we, at subscribe time, with RE2's
reason (``INVALID_FILTER``). Its compiled program is bounded too (``MAX_PROGRAM_SIZE``),
which bounds the cost of a search per character searched.

Many cheap searches can still add up (a state delta has an ``address`` per change, a
request up to ``MAX_SUBSCRIPTIONS`` times ``MAX_FILTERS`` patterns): the searches of one
subscriber over one block run against a ``Budget`` of CPU time, checked before each
search, which raises ``FilterTimeout`` once spent (``events.matching`` runs them off the
event loop and sizes the budget). The size of a request is bounded for the same reason
(``MAX_SUBSCRIPTIONS`` and the like); Sawtooth has no such bounds.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import re2

from xo_core.protobuf.events_pb2 import Event, EventFilter, EventSubscription

MAX_SUBSCRIPTIONS = 64
MAX_FILTERS = 16
MAX_PATTERN_CHARS = 1024
MAX_PROGRAM_SIZE = 2000
"""Most instructions a compiled pattern may have (RE2's ``programsize``; ``^5b7349`` has 4, an alternation of
a hundred 8-digit prefixes under 900): a search costs at most a few operations per instruction per character."""
_PATTERN_MEMORY = 1 << 20
"""RE2's ``max_mem`` per pattern (program and search cache); a pattern needing more does not compile."""


class InvalidFilter(ValueError):
    """A subscription the validator would refuse with INVALID_FILTER (or one over our size bounds)."""


class FilterTimeout(Exception):
    """The searches for one subscriber over one block took more than their ``Budget``."""


class Budget:
    """How much CPU time the searches may take together; ``check`` before each search raises FilterTimeout past it.

    CPU time of the thread that searches (``time.thread_time``), not wall time: a
    subscriber is not dropped because the machine was busy or the thread waited its turn.
    """

    def __init__(self, seconds: float, clock: Callable[[], float] = time.thread_time) -> None:
        self.seconds = seconds
        self._clock = clock
        self._started = clock()

    @property
    def used(self) -> float:
        """The CPU seconds spent on filters since the budget started."""
        return self._clock() - self._started

    def check(self) -> None:
        """Raise :class:`FilterTimeout` once the budget is spent, so one subscriber's filters cannot stall the rest."""
        if self.used > self.seconds:
            raise FilterTimeout(f"its filters took over {self.seconds * 1000:.3g} ms of CPU on one block's events")


def unlimited() -> Budget:
    """A budget that never runs out: for a pattern run where time does not matter (tests, one-off checks)."""
    return Budget(float("inf"))


@dataclass(frozen=True)
class _Filter:
    key: str
    match_string: str
    kind: int
    pattern: re2._Regexp | None

    def passes(self, attributes: Sequence[Event.Attribute], budget: Budget) -> bool:
        values = [attribute.value for attribute in attributes if attribute.key == self.key]
        if self.kind == EventFilter.SIMPLE_ANY:
            return self.match_string in values
        if self.kind == EventFilter.SIMPLE_ALL:
            return all(value == self.match_string for value in values)
        if self.kind == EventFilter.REGEX_ANY:
            return any(self._found(value, budget) for value in values)
        return all(self._found(value, budget) for value in values)

    def _found(self, value: str, budget: Budget) -> bool:
        assert self.pattern is not None
        budget.check()
        return self.pattern.search(value) is not None


@dataclass(frozen=True)
class Subscription:
    """One ``EventSubscription``, checked and compiled."""

    event_type: str
    filters: tuple[_Filter, ...]

    def matches(self, event: Event, budget: Budget) -> bool:
        """Whether ``event`` is in this subscription; may raise FilterTimeout (searches past ``budget``)."""
        return event.event_type == self.event_type and all(
            item.passes(event.attributes, budget) for item in self.filters
        )


@dataclass(frozen=True)
class Subscriptions:
    """What one client subscribed to; ``key`` is equal for equal requests, so their results can be shared."""

    items: tuple[Subscription, ...]
    key: bytes

    @property
    def event_types(self) -> frozenset[str]:
        return frozenset(item.event_type for item in self.items)

    def wants(self, event: Event, budget: Budget) -> bool:
        """Whether ``event`` is in any of the subscriptions; may raise FilterTimeout.

        ``budget`` is shared by all the events of one block.
        """
        return any(item.matches(event, budget) for item in self.items if item.event_type == event.event_type)


def compile_subscriptions(requested: Sequence[EventSubscription]) -> Subscriptions:
    """Check and compile the subscriptions of a subscribe or get request; raises InvalidFilter.

    The newest ``_COMPILED_KEPT`` distinct requests are kept compiled: a client that
    subscribes again (or a hundred with one request) costs a lookup, not a compilation.
    """
    if len(requested) > MAX_SUBSCRIPTIONS:
        raise InvalidFilter(f"too many subscriptions: {len(requested)} (at most {MAX_SUBSCRIPTIONS})")
    key = b"".join(item.SerializeToString(deterministic=True) + b"\x00" for item in requested)
    compiled = _compiled.get(key)
    if compiled is not None:
        _compiled.move_to_end(key)
        return compiled
    items = tuple(
        Subscription(item.event_type, tuple(_compile_filters(item.event_type, item.filters))) for item in requested
    )
    compiled = _compiled[key] = Subscriptions(items, key)
    while len(_compiled) > _COMPILED_KEPT:
        _compiled.popitem(last=False)
    return compiled


_COMPILED_KEPT = 256
_compiled: OrderedDict[bytes, Subscriptions] = OrderedDict()


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


def _options() -> re2.Options:
    options = re2.Options()
    options.max_mem = _PATTERN_MEMORY
    options.log_errors = False
    options.never_capture = True
    return options


_OPTIONS = _options()


def _compile_pattern(text: str) -> re2._Regexp:
    if len(text) > MAX_PATTERN_CHARS:
        raise InvalidFilter(f"Invalid regular expression: longer than {MAX_PATTERN_CHARS} characters")
    try:
        pattern = re2.compile(text, _OPTIONS)
    except re2.error as error:
        reason = error.args[0].decode(errors="replace") if error.args and isinstance(error.args[0], bytes) else error
        raise InvalidFilter(
            f"Invalid regular expression: {text}: {reason} (patterns run under RE2, in linear time:"
            " no backreferences, lookaround or possessive repetition)"
        ) from None
    if pattern.programsize > MAX_PROGRAM_SIZE:
        raise InvalidFilter(
            f"Invalid regular expression: {text}: too complex ({pattern.programsize} instructions compiled,"
            f" at most {MAX_PROGRAM_SIZE}); large repetition counts are the usual cause"
        )
    return pattern
