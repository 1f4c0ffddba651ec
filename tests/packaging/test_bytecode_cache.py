"""The run's shared bytecode cache (tests/bytecode_cache.py): made only where bytecode may not be written beside
the sources, private, inherited by the processes the run starts, removed at the end."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bytecode_cache import DONT_WRITE, PREFIX, share_bytecode_cache


class Cleanups:
    """What share_bytecode_cache needs of a pytest.Config: somewhere to leave its cleanup."""

    def __init__(self) -> None:
        self.done: list = []

    def add_cleanup(self, cleanup) -> None:
        self.done.append(cleanup)


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Whatever the test changes in os.environ and sys comes back after it."""
    monkeypatch.setattr(sys, "pycache_prefix", sys.pycache_prefix)
    monkeypatch.setattr(sys, "dont_write_bytecode", sys.dont_write_bytecode)
    monkeypatch.delenv(PREFIX, raising=False)
    return monkeypatch


def test_where_bytecode_may_not_be_written_beside_the_sources_the_run_shares_a_private_cache(environment, tmp_path):
    environment.setenv(DONT_WRITE, "1")
    config = Cleanups()

    share_bytecode_cache(config)

    cache = Path(os.environ[PREFIX])
    assert DONT_WRITE not in os.environ and sys.pycache_prefix == str(cache) and not sys.dont_write_bytecode
    assert cache.is_dir() and stat.S_IMODE(cache.stat().st_mode) == 0o700 and cache.stat().st_uid == os.getuid()
    assert tmp_path not in cache.parents and Path(__file__).parents[2] not in cache.parents
    source = tmp_path / "compiled_once.py"
    source.write_text("VALUE = 1\n")
    subprocess.run([sys.executable, "-c", "import compiled_once"], cwd=tmp_path, check=True)
    assert list(cache.rglob("compiled_once*.pyc")), "a process the run starts writes its bytecode to the cache"
    assert not (tmp_path / "__pycache__").exists()
    for cleanup in config.done:
        cleanup()
    assert not cache.exists()


@pytest.mark.parametrize(("dont_write", "prefix"), [(None, None), ("1", "/somewhere/chosen")])
def test_a_prefix_already_chosen_or_bytecode_allowed_is_left_as_it_is(environment, dont_write, prefix):
    for name, value in ((DONT_WRITE, dont_write), (PREFIX, prefix)):
        if value is None:
            environment.delenv(name, raising=False)
        else:
            environment.setenv(name, value)
    before = (dict(os.environ), sys.pycache_prefix, sys.dont_write_bytecode)
    config = Cleanups()

    share_bytecode_cache(config)

    assert (dict(os.environ), sys.pycache_prefix, sys.dont_write_bytecode) == before
    assert config.done == []
