"""Runs started side by side for a module's tests (tests/together.py): a few at a time, in order, each result its own,
and only where every test of the group runs in this process."""

from __future__ import annotations

import threading
import time

import pytest

from tests.together import SideBySide, grouped_in_this_process, selected


def test_at_most_at_once_run_together_in_the_order_given_and_each_test_gets_its_own_result():
    lock, running, most, order = threading.Lock(), [0], [0], []

    def run(key: int) -> int:
        with lock:
            order.append(key)
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return key * 10

    runs = SideBySide(run, [1, 2, 3, 4, 5, 6], at_once=2)
    try:
        assert [runs.result(key) for key in (6, 1, 3)] == [60, 10, 30]
    finally:
        runs.close()
    assert most[0] == 2
    assert order[:2] == [1, 2] or order[:2] == [2, 1]
    assert sorted(order) == [1, 2, 3, 4, 5, 6]


def test_a_key_not_started_runs_when_asked_for_and_what_a_run_raises_reaches_its_test():
    def run(key: str) -> str:
        if key == "bad":
            pytest.skip("the run could not happen here")
        return key.upper()

    runs = SideBySide(run, [], at_once=3)
    try:
        assert runs.result("late") == "LATE"
        with pytest.raises(pytest.skip.Exception, match="could not happen"):
            runs.result("bad")
    finally:
        runs.close()


@pytest.mark.parametrize("letter", ["a", "b"])
def test_selected_lists_the_parameters_this_session_runs(request, letter):
    assert selected(request, test_selected_lists_the_parameters_this_session_runs, "letter") in (
        ["a", "b"],  # the whole module, or both of these tests
        [letter],  # one of them alone (pytest -k, or a node id)
    )
    other = test_a_key_not_started_runs_when_asked_for_and_what_a_run_raises_reaches_its_test
    assert selected(request, other, "x") == []


def test_only_the_grouped_distributions_keep_a_group_in_one_process(pytestconfig, monkeypatch):
    for dist, together in (("no", True), ("loadgroup", True), ("load", False), ("loadscope", False)):
        monkeypatch.setattr(pytestconfig.option, "dist", dist, raising=False)
        assert grouped_in_this_process(pytestconfig) is together
