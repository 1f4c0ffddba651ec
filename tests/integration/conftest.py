"""Fixtures of the integration suite: a network to play on, players with keys of their own, fresh game names.

The suite plays on the REST API that XO_REST_URL names (a real Sawtooth network: scripts/real-sawtooth, or
docker compose), whose REST APIs report rejected batches as XO_REJECTIONS_REPORTED states (see
players.Rejections). When XO_REST_URL is unset, the session starts an `xo-devnet` of its own, which always
reports them. No test knows which network it plays on, and since a real network is shared and keeps its games,
every test uses names and keys of its own.

The chips matches need chips and a broker. On a named network, XO_CHIPS_ISSUER names the private key file of a
key in its chips.issuers setting (without it those tests skip, saying so) and XO_BROKER an MQTT broker (without
it the session runs Debian's mosquitto); the suite's own xo-devnet has both.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.integration.chips_players import ChipsIssuer
from tests.integration.devnet import devnet_broker, devnet_issuer_key, running_devnet
from tests.integration.players import Player, Rejections, Xo
from tests.integration.rest import wait_until_serving

# How long a named network may take to come up (a fresh PBFT network needs its genesis block first).
# The default fits within pytest's per-test timeout (pyproject.toml), which covers this fixture's setup.
READY_SECONDS = float(os.environ.get("XO_REST_READY_SECONDS", "100"))


def named_rest_url() -> str:
    return os.environ.get("XO_REST_URL", "").strip().rstrip("/")


@dataclass(frozen=True)
class Network:
    """Where the suite plays: the REST API, the chips issuer's private key file and the broker, when known."""

    url: str
    chips_issuer: Path | None
    broker: str | None


@pytest.fixture(scope="session")
def network(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Network]:
    named = named_rest_url()
    if named:
        wait_until_serving(named, READY_SECONDS)
        issuer = os.environ.get("XO_CHIPS_ISSUER", "").strip()
        yield Network(named, Path(issuer) if issuer else None, os.environ.get("XO_BROKER", "").strip() or None)
        return
    workdir = tmp_path_factory.mktemp("devnet")
    with running_devnet(workdir) as url:
        yield Network(url, devnet_issuer_key(workdir), devnet_broker(workdir))


@pytest.fixture(scope="session")
def rest_url(network: Network) -> str:
    return network.url


@pytest.fixture(scope="session")
def chips_issuer(network: Network) -> ChipsIssuer:
    """The key that may issue chips on the network, for the chips tests to fund their players with."""
    if network.chips_issuer is None:
        pytest.skip(
            "no chips issuer: XO_CHIPS_ISSUER must name the private key file of a key in the network's "
            "chips.issuers setting (scripts/real-sawtooth sets one up)"
        )
    return ChipsIssuer(network.chips_issuer, network.url)


@pytest.fixture(scope="session")
def broker(network: Network, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The MQTT broker the chips matches play through: the network's, else Debian's mosquitto of the session's own."""
    if network.broker:
        yield network.broker
        return
    try:
        from tests.mosquitto import running_mosquitto  # noqa: PLC0415 - outside tests/integration (docker image)
    except ImportError:
        pytest.skip("no MQTT broker for the chips matches: name one with XO_BROKER (mqtt://HOST:PORT)")
    with running_mosquitto(tmp_path_factory.mktemp("mosquitto")) as mosquitto:
        yield f"mqtt://127.0.0.1:{mosquitto.port}"


@pytest.fixture(scope="session")
def xo(rest_url: str) -> Xo:
    """`xo` on the network; XO_REJECTIONS_REPORTED describes a named network, never the suite's own devnet."""
    return Xo(rest_url, Rejections.from_environment() if named_rest_url() else Rejections.ALWAYS)


@pytest.fixture(scope="session")
def key_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The players' keys: made for this run, never the user's own ~/.sawtooth/keys."""
    return tmp_path_factory.mktemp("keys")


@pytest.fixture(scope="session")
def alice(xo: Xo, key_dir: Path) -> Player:
    return Player.new("alice", key_dir, xo)


@pytest.fixture(scope="session")
def bob(xo: Xo, key_dir: Path) -> Player:
    return Player.new("bob", key_dir, xo)


@pytest.fixture(scope="session")
def carol(xo: Xo, key_dir: Path) -> Player:
    return Player.new("carol", key_dir, xo)


@pytest.fixture
def game(request: pytest.FixtureRequest) -> str:
    """A game name no other test, and no earlier run on the same network, has used."""
    return unique_game_name(request.node.name)


@pytest.fixture
def game_namer(request: pytest.FixtureRequest) -> Callable[[], str]:
    """For tests that need several games."""
    return lambda: unique_game_name(request.node.name)


def unique_game_name(test_name: str) -> str:
    readable = re.sub(r"[^a-z0-9]+", "-", test_name.lower()).strip("-")[:32]
    return f"{readable}-{uuid.uuid4().hex[:12]}"
