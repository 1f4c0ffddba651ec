"""Subscriptions and filters match as a Sawtooth validator's do, refuse what it refuses, and cannot stall us."""

import time

import pytest

from xo_core.protobuf.events_pb2 import Event, EventFilter, EventSubscription
from xo_devnet.events.filters import (
    MAX_FILTERS,
    MAX_PATTERN_CHARS,
    MAX_SUBSCRIPTIONS,
    FilterTimeout,
    InvalidFilter,
    compile_subscriptions,
)


def event(event_type: str = "xo/take", **attributes: str | list[str]) -> Event:
    pairs = [
        (key, value)
        for key, values in attributes.items()
        for value in (values if isinstance(values, list) else [values])
    ]
    return Event(event_type=event_type, attributes=[Event.Attribute(key=key, value=value) for key, value in pairs])


def subscription(event_type: str = "xo/take", *filters: tuple[str, str, int]) -> EventSubscription:
    return EventSubscription(
        event_type=event_type,
        filters=[EventFilter(key=key, match_string=match, filter_type=kind) for key, match, kind in filters],
    )


def wants(item: Event, *subscriptions: EventSubscription) -> bool:
    return compile_subscriptions(subscriptions).wants(item)


def test_a_subscription_without_filters_takes_every_event_of_its_type_and_no_other():
    assert wants(event(name="g"), subscription())
    assert not wants(event("xo/create", name="g"), subscription())
    assert not wants(event("xo/tak"), subscription())


@pytest.mark.parametrize(
    ("values", "simple_any", "simple_all"),
    [
        (["g1"], True, True),
        (["g1", "g2"], True, False),
        (["g2"], False, False),
        ([], False, True),  # no attribute with the key: ALL holds vacuously, ANY does not
    ],
)
def test_simple_filters_compare_whole_values_of_the_attributes_with_their_key(values, simple_any, simple_all):
    item = event(name=values, other="g1")
    assert wants(item, subscription("xo/take", ("name", "g1", EventFilter.SIMPLE_ANY))) is simple_any
    assert wants(item, subscription("xo/take", ("name", "g1", EventFilter.SIMPLE_ALL))) is simple_all


def test_regex_filters_search_rather_than_match_the_whole_value():
    item = event("sawtooth/state-delta", address=["5b7349aa", "00beef"])
    assert wants(item, subscription("sawtooth/state-delta", ("address", "^5b7349", EventFilter.REGEX_ANY)))
    assert wants(item, subscription("sawtooth/state-delta", ("address", "beef", EventFilter.REGEX_ANY)))
    assert not wants(item, subscription("sawtooth/state-delta", ("address", "^5b7349", EventFilter.REGEX_ALL)))
    assert wants(item, subscription("sawtooth/state-delta", ("address", "[0-9a-f]{6}", EventFilter.REGEX_ALL)))
    assert wants(event("sawtooth/state-delta"), subscription("sawtooth/state-delta", ("address", "x", 4)))


def test_every_filter_must_pass_and_any_subscription_may_take_the_event():
    item = event(name="g1", space="5")
    both = subscription("xo/take", ("name", "g1", EventFilter.SIMPLE_ANY), ("space", "[0-4]", EventFilter.REGEX_ANY))
    assert not wants(item, both)
    assert wants(item, both, subscription("xo/take", ("space", "5", EventFilter.SIMPLE_ANY)))


@pytest.mark.parametrize("kind", [EventFilter.FILTER_TYPE_UNSET, 99])
def test_an_unknown_filter_type_is_an_invalid_filter_as_for_the_validator(kind):
    with pytest.raises(InvalidFilter, match=f"^Unknown filter type: {kind}$"):
        compile_subscriptions([subscription("xo/take", ("name", "g", kind))])


def test_a_pattern_that_does_not_compile_is_an_invalid_filter_naming_it():
    with pytest.raises(InvalidFilter, match=r"^Invalid regular expression: 5b73\(49: "):
        compile_subscriptions([subscription("x", ("address", "5b73(49", EventFilter.REGEX_ANY))])


def test_a_simple_filter_may_hold_any_text_since_it_is_not_a_pattern():
    assert wants(event(name="a(b"), subscription("xo/take", ("name", "a(b", EventFilter.SIMPLE_ANY)))


def test_the_size_of_a_request_is_bounded():
    with pytest.raises(InvalidFilter, match="too many subscriptions"):
        compile_subscriptions([subscription()] * (MAX_SUBSCRIPTIONS + 1))
    with pytest.raises(InvalidFilter, match="too many filters"):
        compile_subscriptions([subscription("x", *[("k", "v", EventFilter.SIMPLE_ANY)] * (MAX_FILTERS + 1))])
    with pytest.raises(InvalidFilter, match="longer than"):
        compile_subscriptions([subscription("x", ("k", "a" * (MAX_PATTERN_CHARS + 1), EventFilter.REGEX_ANY))])


def test_a_catastrophically_backtracking_pattern_times_out_instead_of_stalling_the_ledger():
    # Against 40 characters Python's own re would run for hours; a player picks game names.
    subscriptions = compile_subscriptions([subscription("xo/create", ("name", "^(a|aa)+$", EventFilter.REGEX_ANY))])
    started = time.perf_counter()
    with pytest.raises(FilterTimeout, match=r"\^\(a\|aa\)\+\$"):
        subscriptions.wants(event("xo/create", name="a" * 40 + "!"))
    assert time.perf_counter() - started < 1.0


def test_many_cheap_searches_together_time_out_instead_of_adding_up_to_a_stall():
    # Each search stays under the per-search limit; a state delta has one address per changed address.
    addresses = [f"{index:070x}" for index in range(20_000)]
    slow = "(?:[0-9a-f]*){2}(?=[^0-9a-f])"
    subscriptions = compile_subscriptions(
        [subscription("sawtooth/state-delta", ("address", slow, EventFilter.REGEX_ANY))]
    )
    started = time.perf_counter()
    with pytest.raises(FilterTimeout, match="20 ms"):
        subscriptions.wants(event("sawtooth/state-delta", address=addresses))
    assert time.perf_counter() - started < 0.5


def test_equal_requests_have_equal_keys_so_their_results_can_be_shared():
    one = compile_subscriptions([subscription("xo/take", ("name", "g", EventFilter.SIMPLE_ANY))])
    same = compile_subscriptions([subscription("xo/take", ("name", "g", EventFilter.SIMPLE_ANY))])
    other = compile_subscriptions([subscription("xo/take", ("name", "h", EventFilter.SIMPLE_ANY))])
    assert one.key == same.key != other.key
