"""Subscriptions and filters match as a Sawtooth validator's do, refuse what it refuses, and cannot stall us."""

import itertools
import time

import pytest

from xo_core.protobuf.events_pb2 import Event, EventFilter, EventSubscription
from xo_devnet.events.filters import (
    MAX_FILTERS,
    MAX_PATTERN_CHARS,
    MAX_PROGRAM_SIZE,
    MAX_SUBSCRIPTIONS,
    Budget,
    FilterTimeout,
    InvalidFilter,
    compile_subscriptions,
    unlimited,
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
    return compile_subscriptions(subscriptions).wants(item, unlimited())


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


def test_a_catastrophically_backtracking_pattern_runs_in_linear_time():
    # Under Python's re (the validator's engine) 40 characters would take hours; RE2 takes microseconds per character.
    subscriptions = compile_subscriptions([subscription("xo/create", ("name", "^(a|aa)+$", EventFilter.REGEX_ANY))])
    assert not subscriptions.wants(event("xo/create", name="a" * 40 + "!"), unlimited())
    started = time.perf_counter()
    assert not subscriptions.wants(event("xo/create", name="a" * 100_000 + "!"), unlimited())
    assert subscriptions.wants(event("xo/create", name="a" * 100_000), unlimited())
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(a)\1", r"invalid escape sequence: \\1"),
        ("(?=a)b", r"invalid perl operator: \(\?="),
        ("(?<!a)b", r"invalid perl operator: \(\?<!"),
        ("a++", r"bad repetition operator: \+\+"),
    ],
    ids=["backreference", "lookahead", "lookbehind", "possessive"],
)
def test_a_pattern_re2_cannot_run_is_an_invalid_filter_with_re2s_reason(pattern, reason):
    with pytest.raises(InvalidFilter, match=rf"^Invalid regular expression: .*: {reason} \(patterns run under RE2"):
        compile_subscriptions([subscription("xo/create", ("name", pattern, EventFilter.REGEX_ANY))])


def test_a_pattern_too_complex_to_search_cheaply_is_an_invalid_filter():
    assert compile_subscriptions([subscription("x", ("address", "[0-9a-f]{70}", EventFilter.REGEX_ANY))])
    with pytest.raises(InvalidFilter, match=rf"too complex \(3005 instructions compiled, at most {MAX_PROGRAM_SIZE}\)"):
        compile_subscriptions([subscription("x", ("address", "(?:[0-9a-f]{0,100}){10}z", EventFilter.REGEX_ANY))])


def test_many_cheap_searches_together_run_out_of_their_budget_instead_of_adding_up_to_a_stall():
    # A state delta has one address per changed address; the budget is checked before each search.
    ticks = itertools.count()
    budget = Budget(0.010, clock=lambda: next(ticks) / 1_000_000)  # each reading of the clock: 1 µs later
    addresses = [f"{index:070x}" for index in range(20_000)]
    subscriptions = compile_subscriptions(
        [subscription("sawtooth/state-delta", ("address", "z", EventFilter.REGEX_ANY))]
    )
    with pytest.raises(FilterTimeout, match="over 10 ms of CPU"):
        subscriptions.wants(event("sawtooth/state-delta", address=addresses), budget)
    assert 0.010 < budget.used < 0.0101  # stopped at the first search past the budget, not at the 20,000th


def test_a_budget_counts_cpu_time_so_waiting_costs_nothing():
    budget = Budget(0.005)
    time.sleep(0.05)
    budget.check()
    assert budget.used < 0.005


def test_equal_requests_have_equal_keys_so_their_results_can_be_shared():
    one = compile_subscriptions([subscription("xo/take", ("name", "g", EventFilter.SIMPLE_ANY))])
    same = compile_subscriptions([subscription("xo/take", ("name", "g", EventFilter.SIMPLE_ANY))])
    other = compile_subscriptions([subscription("xo/take", ("name", "h", EventFilter.SIMPLE_ANY))])
    assert one.key == same.key != other.key
