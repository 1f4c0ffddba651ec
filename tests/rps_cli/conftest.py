"""Fixtures of the rps command's tests: rps run in-process, players with fresh keys, games put in a stand-in state.

The stand-in REST API (``fake``, from ``tests/conftest.py``) serves whatever state a test
puts there; it plays only XO, so the tests that submit rps ops run against xo-devnet.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from rps_cli.main import main
from rps_tp.family import game_address
from rps_tp.game import Game
from rps_tp.state import encode_bucket
from xo_core import block_info
from xo_core.keyfiles import write_key_pair
from xo_core.protobuf.block_info_pb2 import BlockInfo, BlockInfoConfig
from xo_core.signing import Signer


@dataclass
class Player:
    """A player's key files in a fresh key directory, and the flags that make rps use them."""

    key_dir: Path
    name: str
    public_key: str

    def flags(self, url: str) -> list[str]:
        return ["--url", url, "--key-dir", str(self.key_dir), "--username", self.name]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """``run("show", "g1", ...)`` runs rps in-process, as a shell would, and returns (exit code, stdout, stderr)."""

    def run_rps(*argv: object) -> tuple[int, str, str]:
        code = main([str(arg) for arg in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run_rps


@pytest.fixture
def make_player(tmp_path: Path) -> Callable[[str], Player]:
    key_dir = tmp_path / "keys"

    def make(name: str, signer: Signer | None = None) -> Player:
        signer = signer or Signer.generate()
        write_key_pair(key_dir, name, signer)
        return Player(key_dir, name, signer.public_key)

    return make


def put_game(fake, game: Game) -> None:
    """Store ``game`` in the stand-in's state, as the processor would have written it."""
    fake.state[game_address(game.name)] = encode_bucket([game])


def put_block_info(fake, timestamp: int, block_num: int = 9) -> None:
    """Store a BlockInfo for block ``block_num`` at ``timestamp``, as Sawtooth's block_info processor would."""
    fake.state[block_info.CONFIG_ADDRESS] = BlockInfoConfig(
        latest_block=block_num, oldest_block=0, target_count=256, sync_tolerance=300
    ).SerializeToString()
    fake.state[block_info.block_address(block_num)] = BlockInfo(
        block_num=block_num, timestamp=timestamp, signer_public_key="02" + "0" * 64
    ).SerializeToString()
