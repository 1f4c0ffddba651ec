"""Processes of several tests started side by side, for tests that mostly wait on processes of their own.

A benchmark's smoke run or a pytest run in a process of its own spends most of its time
waiting (a ledger starting, a deadline passing), so a module of such tests finishes much
sooner when a fixture starts the runs of all its selected tests a few at a time and each
test then checks its own. That is only right when every one of those tests runs in this
process. Under ``pytest -n``, xdist's ``--dist load`` hands tests out in chunks of
consecutive tests, so tests/conftest.py gives xdist a scheduler (:func:`scheduler`) that
does the same except that a chunk never ends in the middle of a module of :data:`MODULES`.
(xdist's own ``--dist loadgroup`` cannot be used for this: with pytest 9.2 it silently stops
grouping, pytest-dev/pytest-xdist#1386.) Under any other distribution each test starts only
its own run.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Generic, TypeVar

import pytest

if TYPE_CHECKING:
    from xdist.scheduler import LoadScheduling

Key = TypeVar("Key", bound=Hashable)
Result = TypeVar("Result")

#: The modules whose tests start their runs side by side (node ids' paths, from the repository's root).
MODULES = ("tests/benchmarks/test_smoke.py", "tests/docker/test_suite_against_a_pbft_secondary.py")
#: The key of xdist's workerinput that tells a worker the modules' tests all come to one worker.
WORKER_INPUT = "xo_modules_together"


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def chunk_size(pending: list[str], wanted: int) -> int:
    """How many of the ``pending`` tests (node ids, in order) to send a worker that asked for ``wanted``: as many,
    or more so as not to stop in the middle of a module of MODULES."""
    size = min(wanted, len(pending))
    while 0 < size < len(pending):
        module = module_of(pending[size - 1])
        if module not in MODULES or module_of(pending[size]) != module:
            break
        size += 1
    return size


def scheduler(config: pytest.Config, log: object) -> LoadScheduling | None:
    """For ``--dist load``: xdist's own scheduling (consecutive tests in chunks, so most modules' tests share a
    worker and its module fixtures), except that a chunk never ends in the middle of a module of MODULES."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScheduling  # noqa: PLC0415 (only under xdist)

    class ModulesTogether(LoadScheduling):
        def _send_tests(self, node: object, num: int) -> None:
            assert self.collection is not None
            pending = [self.collection[index] for index in self.pending]
            super()._send_tests(node, chunk_size(pending, num))  # type: ignore[arg-type]

    return ModulesTogether(config, log)  # type: ignore[arg-type]


def side_by_side_here(config: pytest.Config, nodeid: str) -> bool:
    """Whether every selected test of the module of ``nodeid`` runs in this process: without xdist, or where the
    controller scheduled with :func:`scheduler` and the module is one of MODULES."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return True
    return bool(workerinput.get(WORKER_INPUT)) and module_of(nodeid) in MODULES


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
