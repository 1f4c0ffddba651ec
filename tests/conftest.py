"""Fixtures every client test shares: a stand-in REST API, a port nobody listens on, a clean environment."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.bytecode_cache import share_bytecode_cache
from tests.fake_sawtooth import FakeSawtooth
from tests.ports import reserved_port
from tests.processes import Leftovers, become_subreaper
from tests.together import MODULES, WORKER_INPUT, module_of, scheduler


def pytest_configure(config: pytest.Config) -> None:
    share_bytecode_cache(config)
    become_subreaper()  # a test's grandchildren stay below the runner, where the end of the test finds them


@pytest.fixture(autouse=True)
def _no_process_outlives_its_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Whatever a test started is killed when it ends (passed, failed or timed out), children and grandchildren too;
    in the modules of tests/together.py, whose runs go on side by side across their tests, when the module ends."""
    if module_of(request.node.nodeid) in MODULES:
        yield
        return
    leftovers = Leftovers()
    yield
    leftovers.stop()


@pytest.fixture(autouse=True, scope="module")
def _no_process_outlives_its_module(request: pytest.FixtureRequest) -> Iterator[None]:
    """What a module of tests/together.py started is killed when the module ends."""
    if module_of(request.node.nodeid) not in MODULES:
        yield
        return
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
def closed_port() -> Iterator[int]:
    """A loopback port nothing listens on, held for the test so that no other program is given it meanwhile.

    A server the test starts there itself may still listen on it (tests/ports.py says how)."""
    with reserved_port() as port:
        yield port


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests choose their URL and credentials explicitly; the developer's environment must not leak in."""
    for variable in ("XO_URL", "XO_USERNAME", "XO_KEY_DIR", "XO_AUTH_USER", "XO_AUTH_PASSWORD",
                     "XO_BROKER", "XO_BROKER_USERNAME", "XO_BROKER_PASSWORD"):
        monkeypatch.delenv(variable, raising=False)
