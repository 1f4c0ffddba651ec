"""One bytecode cache for a whole test run, where the environment says not to write bytecode.

The suite starts about a thousand Python processes (xo-devnet and its processors, every
``xo``, ``rps`` and ``chips`` command, pytest in a process of its own). With
``PYTHONDONTWRITEBYTECODE`` set, as in many containers, each one compiles every project
module it imports from source again: about a tenth of the suite's CPU. Instead, the run
writes bytecode once, into a private temporary directory (never beside the sources, which
is what the setting is there to prevent) that every process of the run reads
(``PYTHONPYCACHEPREFIX``) and that is removed when the run ends. A prefix the user chose is
left alone.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import pytest

#: The environment variable that names where the cache is.
PREFIX = "PYTHONPYCACHEPREFIX"
DONT_WRITE = "PYTHONDONTWRITEBYTECODE"


def share_bytecode_cache(config: pytest.Config) -> None:
    """Redirect bytecode to a cache of this run, for this process and every process it starts from now on.

    Called before xdist starts its workers, so they inherit it; in a worker it finds the prefix set and does nothing.
    """
    if not os.environ.get(DONT_WRITE) or os.environ.get(PREFIX):
        return
    cache = tempfile.mkdtemp(prefix="xo-tests-bytecode-")  # only this user may write there
    config.add_cleanup(lambda: shutil.rmtree(cache, ignore_errors=True))
    os.environ[PREFIX] = cache
    del os.environ[DONT_WRITE]
    sys.pycache_prefix = cache
    sys.dont_write_bytecode = False
