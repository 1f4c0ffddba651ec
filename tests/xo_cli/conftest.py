"""Fixtures of the xo command's tests: xo run in-process, and players with fresh keys.

The stand-in REST API (``fake``) is shared with the other client tests: ``tests/conftest.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from xo_cli.main import main
from xo_core.keyfiles import write_key_pair
from xo_core.signing import Signer


@dataclass
class Player:
    """A player's key files in a fresh key directory, and the flags that make xo use them."""

    key_dir: Path
    name: str
    public_key: str

    def flags(self, url: str) -> list[str]:
        return ["--url", url, "--key-dir", str(self.key_dir), "--username", self.name]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """``run("show", "g1", ...)`` runs xo in-process, the way a shell would, and returns (exit code, stdout, stderr)."""

    def run_xo(*argv: object) -> tuple[int, str, str]:
        code = main([str(arg) for arg in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run_xo


@pytest.fixture
def make_player(tmp_path: Path) -> Callable[[str], Player]:
    key_dir = tmp_path / "keys"

    def make(name: str) -> Player:
        signer = Signer.generate()
        write_key_pair(key_dir, name, signer)
        return Player(key_dir, name, signer.public_key)

    return make


