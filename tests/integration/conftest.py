"""Fixtures of the integration suite: a network to play on, players with keys of their own, fresh game names.

The suite plays on the REST API that XO_REST_URL names (a real Sawtooth network, in docker compose), whose
REST APIs report rejected batches as XO_REJECTIONS_REPORTED states (see players.Rejections). When XO_REST_URL
is unset, the session starts an `xo-devnet` of its own, which always reports them. No test knows which
network it plays on, and since a real network is shared and keeps its games, every test uses names and keys
of its own.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.integration.devnet import running_devnet
from tests.integration.players import Player, Rejections, Xo
from tests.integration.rest import wait_until_serving

# How long a named network may take to come up (a fresh PBFT network needs its genesis block first).
# The default fits within pytest's per-test timeout (pyproject.toml), which covers this fixture's setup.
READY_SECONDS = float(os.environ.get("XO_REST_READY_SECONDS", "100"))


def named_rest_url() -> str:
    return os.environ.get("XO_REST_URL", "").strip().rstrip("/")


@pytest.fixture(scope="session")
def rest_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    named = named_rest_url()
    if named:
        wait_until_serving(named, READY_SECONDS)
        yield named
        return
    with running_devnet(tmp_path_factory.mktemp("devnet")) as url:
        yield url


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
