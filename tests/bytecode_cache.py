"""One bytecode cache for the test runs, where the environment says not to write bytecode beside the sources.

The suite starts about a thousand Python processes (xo-devnet and its processors, every
``xo``, ``rps`` and ``chips`` command, pytest in a process of its own), and each xdist
worker rewrites the asserts of every test module it collects. With
``PYTHONDONTWRITEBYTECODE`` set, as in many containers, each of them would compile from
source again, every time: about a tenth of the suite's CPU, and most of the six seconds
a worker spends collecting. Instead, bytecode goes to a cache that every process of the
run reads and writes (``PYTHONPYCACHEPREFIX``), never beside the sources (which is what
the setting is there to prevent). The cache is the user's (``$XDG_CACHE_HOME``, else
``~/.cache``, under ``xo-tests/bytecode``) and is kept between runs, as ``__pycache__``
would be: Python checks every entry against its source, so a stale one is never used, and
the entries of source directories that are gone (an old clone) are removed as a run starts. A
cache directory that someone else could write to is not trusted: the run then uses a
private one of its own, removed at the end. A prefix the user chose is left alone.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

import pytest

#: The environment variable that names where the cache is.
PREFIX = "PYTHONPYCACHEPREFIX"
DONT_WRITE = "PYTHONDONTWRITEBYTECODE"
#: Where the cache is, under the user's cache directory.
CACHE_PATH = Path("xo-tests", "bytecode")


def share_bytecode_cache(config: pytest.Config) -> None:
    """Redirect bytecode to the cache, for this process and every process it starts from now on.

    Called before xdist starts its workers, so they inherit it; in a worker it finds the prefix set and does nothing.
    """
    if not os.environ.get(DONT_WRITE) or os.environ.get(PREFIX):
        return
    cache = users_cache()
    if cache is not None:
        forget_removed_sources(cache)
    else:
        cache = tempfile.mkdtemp(prefix="xo-tests-bytecode-")  # only this user may write there
        config.add_cleanup(lambda: shutil.rmtree(cache, ignore_errors=True))
    os.environ[PREFIX] = str(cache)
    del os.environ[DONT_WRITE]
    sys.pycache_prefix = str(cache)
    sys.dont_write_bytecode = False


def users_cache() -> Path | None:
    """The user's cache directory for bytecode, made if need be; None if it is not the user's alone."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    cache = base / CACHE_PATH
    try:
        cache.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = cache.stat()
    except OSError:
        return None
    private = status.st_uid == os.getuid() and not stat.S_IMODE(status.st_mode) & (stat.S_IWGRP | stat.S_IWOTH)
    return cache if private else None


def forget_removed_sources(cache: Path) -> None:
    """Remove what the cache holds for directories that no longer exist (the cache mirrors the sources' paths)."""
    for held, directories, _files in os.walk(cache):
        source = Path("/", Path(held).relative_to(cache))
        for name in list(directories):
            if not (source / name).is_dir():
                shutil.rmtree(Path(held, name), ignore_errors=True)
                directories.remove(name)
