"""Fixtures of the ``xo web`` tests: player keys, and the local server against a REST API nobody serves."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.xo_web.local_server import LocalServer
from xo_core.keyfiles import write_key_pair
from xo_core.signing import Signer


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
