"""Runs started side by side for a module's tests (tests/together.py): a few at a time, in order, each result its own,
and only where every test of the module runs in this process."""

from __future__ import annotations

import threading
import time

import pytest

from tests.together import MODULES, WORKER_INPUT, SideBySide, chunk_size, scheduler, selected, side_by_side_here


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


def test_under_dist_load_a_chunk_of_tests_never_ends_in_the_middle_of_one_of_the_modules(pytestconfig, monkeypatch):
    module, other = MODULES[0], "tests/xo_tp/test_rules.py"
    pending = [f"{other}::a", f"{module}::a", f"{module}::b[x]", f"{module}::b[y]", f"{other}::b", f"{other}::c"]
    assert chunk_size(pending, 1) == 1
    assert chunk_size(pending, 2) == chunk_size(pending, 3) == chunk_size(pending, 4) == 4
    assert chunk_size(pending, 5) == 5  # another module's tests are handed out as asked
    assert chunk_size(pending, 100) == 6 and chunk_size([], 3) == 0
    assert chunk_size([f"{module}::a", f"{module}::b"], 1) == 2
    for dist in ("loadscope", "loadfile", "no"):
        monkeypatch.setattr(pytestconfig.option, "dist", dist, raising=False)
        assert scheduler(pytestconfig, log=None) is None


def test_runs_start_side_by_side_only_where_the_module_is_one_unit(pytestconfig, monkeypatch):
    one_of_them, other = f"{MODULES[0]}::test_x", "tests/xo_tp/test_rules.py::test_x"
    monkeypatch.delattr(pytestconfig, "workerinput", raising=False)
    assert side_by_side_here(pytestconfig, other)  # without xdist every test runs here
    monkeypatch.setattr(pytestconfig, "workerinput", {WORKER_INPUT: True}, raising=False)
    assert side_by_side_here(pytestconfig, one_of_them)
    assert not side_by_side_here(pytestconfig, other)  # not one of MODULES: its tests are handed out one by one
    monkeypatch.setattr(pytestconfig, "workerinput", {WORKER_INPUT: False})
    assert not side_by_side_here(pytestconfig, one_of_them)  # another --dist: they may go to several workers
