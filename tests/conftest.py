"""Fixtures every client test shares: a stand-in REST API, a port nobody listens on, a clean environment."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.bytecode_cache import share_bytecode_cache
from tests.fake_sawtooth import FakeSawtooth
from tests.processes import Leftovers, become_subreaper
from tests.together import WORKER_INPUT, scheduler


def pytest_configure(config: pytest.Config) -> None:
    share_bytecode_cache(config)
    become_subreaper()  # a test's grandchildren stay below the runner, where the end of the test finds them


@pytest.fixture(autouse=True)
def _no_process_outlives_its_test() -> Iterator[None]:
    """Whatever a test started is killed when it ends (passed, failed or timed out), children and grandchildren too."""
    leftovers = Leftovers()
    yield
    leftovers.stop()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """Tests handed out one by one, but those of the modules tests/together.py names go to one worker together."""
    return scheduler(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: object) -> None:
    """Tell each worker whether that scheduler hands out its tests (a worker's own --dist is always "no")."""
    node.workerinput[WORKER_INPUT] = node.config.getvalue("dist") == "load"  # type: ignore[attr-defined]


@pytest.fixture
def fake() -> Iterator[FakeSawtooth]:
    server = FakeSawtooth()
    server.thread.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests choose their URL and credentials explicitly; the developer's environment must not leak in."""
    for variable in ("XO_URL", "XO_USERNAME", "XO_KEY_DIR", "XO_AUTH_USER", "XO_AUTH_PASSWORD",
                     "XO_BROKER", "XO_BROKER_USERNAME", "XO_BROKER_PASSWORD"):
        monkeypatch.delenv(variable, raising=False)
