"""``xo-devnet --reset``: start afresh, from an empty chain, after asking (on a terminal) before anything is deleted.

Only the ledger's own files are deleted, never the directory: ``--data-dir`` may
name a directory that holds other things too. The directory lock is held while
deleting, so a chain another xo-devnet is running on is never pulled from under
it. Player keys live elsewhere (the key dir) and are kept.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from xo_core.text import counted
from xo_devnet.storage import DATABASE_NAME, LOCK_NAME

LEDGER_FILES = (DATABASE_NAME, DATABASE_NAME + "-wal", DATABASE_NAME + "-shm")
"""The files of a ledger in its data dir (SQLite's database, write-ahead log and shared memory)."""


class ResetRefused(Exception):
    """The chain was not deleted; the message says why (declined, in use, not deletable)."""


def reset_chain(data_dir: Path, confirm: Callable[[str], bool] | None) -> str:
    """Delete the ledger in ``data_dir``, asking ``confirm`` first when given; return the line to tell the user."""
    if not (data_dir / DATABASE_NAME).exists():
        return f"no chain in {data_dir} to delete: starting a new one"
    with _directory_lock(data_dir):
        blocks = block_count(data_dir / DATABASE_NAME)
        what = f"the chain in {data_dir}" + (f" ({counted(blocks, 'block')})" if blocks is not None else "")
        if confirm is not None and not confirm(f"Delete {what} and start a new one? Player keys are kept. [y/N] "):
            raise ResetRefused("--reset declined: nothing was deleted")
        for path in (data_dir / name for name in LEDGER_FILES):
            try:
                path.unlink(missing_ok=True)
            except OSError as error:
                raise ResetRefused(f"cannot delete {path}: {error.strerror or error}") from None
    return f"deleted {what}: starting a new one"


def block_count(database: Path) -> int | None:
    """How many blocks the ledger holds (genesis included), read without writing; None if it cannot be read."""
    try:
        with contextlib.closing(sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True)) as connection:
            (count,) = connection.execute("SELECT count(*) FROM blocks").fetchone()
    except sqlite3.Error:
        return None
    return int(count)


def ask_on_terminal(question: str) -> bool:
    """Ask a yes/no question on the terminal; anything but y/yes (Ctrl-C and end of input too) is no."""
    try:
        return input(question).strip().lower() in ("y", "yes")
    except (EOFError, KeyboardInterrupt):
        print()
        return False


@contextlib.contextmanager
def _directory_lock(data_dir: Path) -> Iterator[None]:
    """The lock a running xo-devnet holds on its data dir: taking it proves no devnet runs on this chain."""
    try:
        lock_fd = os.open(data_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise ResetRefused(f"cannot use data directory {data_dir}: {error.strerror or error}") from None
    try:
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ResetRefused(f"data directory {data_dir} is in use by another xo-devnet: stop it first") from None
        yield
    finally:
        os.close(lock_fd)
