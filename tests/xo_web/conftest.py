"""Fixtures of the ``xo web`` tests: player keys, the local server against a REST API nobody serves, and against
an xo-devnet (one per test module, with alice's and bob's keys)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from client_core.broker import BrokerAddress
from tests.xo_web.local_server import LocalServer
from xo_core.keyfiles import write_key_pair
from xo_core.signing import Signer
from xo_devnet.spawn import DevnetProcess


@pytest.fixture
def key_dir(tmp_path: Path) -> Path:
    """alice's and bob's keys, as ``xo keygen`` writes them."""
    keys = tmp_path / "keys"
    for name in ("alice", "bob"):
        write_key_pair(keys, name, Signer.generate())
    return keys


@pytest.fixture
def offline_server(key_dir: Path, closed_port: int) -> Iterator[LocalServer]:
    """The local server with no REST API behind it: enough for everything the security layer decides alone."""
    with LocalServer(f"http://127.0.0.1:{closed_port}", key_dir) as server:
        yield server


@pytest.fixture(scope="module")
def devnet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevnetProcess]:
    # A floor of 1 s (chips.min_challenge_seconds): the chips tests let challenges of 1 and 2 s run out.
    log_path = tmp_path_factory.mktemp("devnet") / "devnet.log"
    with DevnetProcess(("--ephemeral", "--min-challenge", "1"), log_path=log_path) as running:
        yield running


@pytest.fixture(scope="module")
def server(devnet: DevnetProcess) -> Iterator[LocalServer]:
    """The local server in front of the module's devnet, with its keys."""
    with LocalServer(devnet.rest_url, devnet.key_dir) as running:
        yield running


@pytest.fixture(scope="module")
def broker(devnet: DevnetProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerAddress]:
    """xo-devnet's own broker, or Debian's mosquitto where this xo-devnet embeds none."""
    url = devnet.ready.get("broker_url")
    if url:
        yield BrokerAddress.parse(url)
        return
    from tests.mosquitto import running_mosquitto  # noqa: PLC0415 - only without xo-devnet's broker

    with running_mosquitto(tmp_path_factory.mktemp("broker")) as mosquitto:
        yield BrokerAddress.parse(f"mqtt://127.0.0.1:{mosquitto.port}")
