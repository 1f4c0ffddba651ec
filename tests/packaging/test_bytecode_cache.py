"""The suite's bytecode cache (tests/bytecode_cache.py): used only where bytecode may not be written beside the
sources, the user's own, inherited by the processes a run starts, kept for the next run."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bytecode_cache import CACHE_PATH, DONT_WRITE, PREFIX, share_bytecode_cache


class Cleanups:
    """What share_bytecode_cache needs of a pytest.Config: somewhere to leave its cleanup."""

    def __init__(self) -> None:
        self.done: list = []

    def add_cleanup(self, cleanup) -> None:
        self.done.append(cleanup)

    def run(self) -> None:
        for cleanup in self.done:
            cleanup()


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """Whatever the test changes in os.environ and sys comes back after it; the user's cache is under tmp_path."""
    monkeypatch.setattr(sys, "pycache_prefix", sys.pycache_prefix)
    monkeypatch.setattr(sys, "dont_write_bytecode", sys.dont_write_bytecode)
    monkeypatch.delenv(PREFIX, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    return monkeypatch


def compile_in_a_process_of_the_run(directory: Path) -> None:
    subprocess.run([sys.executable, "-c", "import compiled_once"], cwd=directory, check=True)


def test_where_bytecode_may_not_be_written_beside_the_sources_runs_share_the_users_cache(environment, tmp_path):
    environment.setenv(DONT_WRITE, "1")
    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "compiled_once.py").write_text("VALUE = 1\n")
    config = Cleanups()

    share_bytecode_cache(config)

    cache = tmp_path / "home-cache" / CACHE_PATH
    assert os.environ[PREFIX] == sys.pycache_prefix == str(cache)
    assert DONT_WRITE not in os.environ and not sys.dont_write_bytecode
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700 and cache.stat().st_uid == os.getuid()
    compile_in_a_process_of_the_run(sources)
    [compiled] = cache.rglob("compiled_once*.pyc")
    assert not (sources / "__pycache__").exists(), "never beside the sources"
    config.run()
    written = compiled.stat().st_mtime_ns
    compile_in_a_process_of_the_run(sources)
    assert compiled.stat().st_mtime_ns == written, "the next run reads what this one compiled"
    (sources / "compiled_once.py").write_text("VALUE = 22\n")
    compile_in_a_process_of_the_run(sources)
    assert compiled.stat().st_mtime_ns != written, "a source changed since is compiled again"


def test_a_run_forgets_what_the_cache_holds_for_sources_that_are_gone(environment, tmp_path):
    environment.setenv(DONT_WRITE, "1")
    cache = tmp_path / "home-cache" / CACHE_PATH
    kept = cache / tmp_path.relative_to("/") / "sources" / "kept.cpython-311.pyc"
    gone = cache / tmp_path.relative_to("/") / "old-clone" / "package" / "gone.cpython-311.pyc"
    for entry in (kept, gone):
        entry.parent.mkdir(parents=True)
        entry.write_bytes(b"bytecode")
    (tmp_path / "sources").mkdir()
    cache.chmod(0o700)

    share_bytecode_cache(Cleanups())

    assert kept.exists() and not gone.parent.parent.exists()


def test_a_users_cache_others_may_write_to_is_not_trusted_and_the_run_uses_a_private_one(environment, tmp_path):
    environment.setenv(DONT_WRITE, "1")
    shared = tmp_path / "home-cache" / CACHE_PATH
    shared.mkdir(parents=True)
    shared.chmod(0o777)
    config = Cleanups()

    share_bytecode_cache(config)

    cache = Path(os.environ[PREFIX])
    assert cache != shared and sys.pycache_prefix == str(cache)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700 and cache.stat().st_uid == os.getuid()
    config.run()
    assert not cache.exists(), "a run's private cache is removed at its end"


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
