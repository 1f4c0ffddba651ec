"""How far behind a broker is: its acknowledgments' time smoothed, a message still waiting counted as it ages."""

from __future__ import annotations

import pytest

from client_core.broker_lag import HALF_LIFE_SECONDS, BrokerLag


def test_a_quick_broker_is_not_behind_and_a_slow_one_is_by_about_what_it_takes() -> None:
    lag = BrokerLag()
    for mid in range(20):
        lag.sent(mid, 100.0 + mid)
        lag.acknowledged(mid, 100.001 + mid)
    assert lag.seconds(120.0) < 0.01
    for mid in range(20, 40):
        lag.sent(mid, 100.0 + mid)
        lag.acknowledged(mid, 102.0 + mid)
    assert lag.seconds(142.0) == pytest.approx(2.0, abs=0.01)


def test_a_message_still_waiting_counts_as_it_ages_and_one_given_up_counts_until_then() -> None:
    lag = BrokerLag()
    lag.sent(1, 10.0)
    assert lag.seconds(10.5) == pytest.approx(0.5) and lag.seconds(13.0) == pytest.approx(3.0)
    lag.gave_up(1, 13.0)
    assert lag.seconds(13.0) == pytest.approx(0.75)  # one sample of 3 s, weighed in
    lag.acknowledged(1, 14.0)  # acknowledged after all: it was counted already
    assert lag.seconds(13.0) == pytest.approx(0.75)


def test_a_broker_that_was_behind_is_not_held_to_it_once_quiet() -> None:
    lag = BrokerLag()
    lag.took(4.0, 50.0)
    assert lag.seconds(50.0) == lag.seconds(50.0 + HALF_LIFE_SECONDS) == pytest.approx(1.0)
    assert lag.seconds(50.0 + 3 * HALF_LIFE_SECONDS) == pytest.approx(0.25)


def test_an_acknowledgment_nobody_waited_for_changes_nothing() -> None:
    lag = BrokerLag()
    lag.acknowledged(7, 5.0)
    assert lag.seconds(5.0) == 0.0
