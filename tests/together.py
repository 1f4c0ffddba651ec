"""Processes of several tests started side by side, for tests that mostly wait on processes of their own.

A benchmark's smoke run or a pytest run in a process of its own spends most of its time
waiting (a ledger starting, a deadline passing), so a module of such tests finishes much
sooner when a fixture starts the runs of all its selected tests a few at a time and each
test then checks its own. That is only right when every one of those tests runs in this
process: the module marks them with ``pytest.mark.xdist_group`` and the suite distributes
with ``--dist loadgroup`` (pyproject.toml), which keeps a group on one worker. Under any
other distribution the tests of one module may run on several workers, each of which
would start all the runs, so each test then starts only its own.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

import pytest

Key = TypeVar("Key", bound=Hashable)
Result = TypeVar("Result")

#: The distributions under which the tests of one xdist group all run in one process (``no``: without xdist).
GROUPED = ("no", "loadgroup")


def grouped_in_this_process(config: pytest.Config) -> bool:
    """Whether the tests of one ``xdist_group`` all run in this process."""
    return config.getoption("dist", default="no") in GROUPED


def selected(request: pytest.FixtureRequest, test: Callable[..., object], name: str) -> list[object]:
    """The values of the parameter ``name`` of ``test`` that this session selected, in the order they run."""
    return [
        item.callspec.params[name]
        for item in request.session.items
        if getattr(item, "function", None) is test and hasattr(item, "callspec")
    ]


class SideBySide(Generic[Key, Result]):
    """``run(key)`` for each key, ``at_once`` at a time in the order given, each started when it is first asked for
    at the latest; :meth:`result` waits for one and returns what it returned (or raises what it raised)."""

    def __init__(self, run: Callable[[Key], Result], keys: list[Key], at_once: int) -> None:
        self._run = run
        self._pool = ThreadPoolExecutor(max_workers=max(at_once, 1), thread_name_prefix="side-by-side")
        self._started: dict[Key, Future[Result]] = {key: self._pool.submit(run, key) for key in keys}

    def result(self, key: Key) -> Result:
        if key not in self._started:
            self._started[key] = self._pool.submit(self._run, key)
        return self._started[key].result()

    def close(self) -> None:
        """Wait for the runs started (each is bounded by its own timeout) and stop the threads."""
        self._pool.shutdown(wait=True, cancel_futures=True)
