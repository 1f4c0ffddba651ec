"""The player's keys as a client command uses them: the signing key, checked as ssh checks its own, and key names.

A private key that others can read lets them play every game seat it holds, so a
command refuses to sign with one, as ssh refuses to use an unprotected identity
file, and says how to fix it. Group read is allowed: ``sawtooth keygen`` writes
its keys 0640 on purpose (a validator's group reads them), and keys made by
Sawtooth's tools must keep working.

Public keys are long hex strings; people know each other by name. The ``*.pub``
files of the key directory give a key its name (``alice`` for ``alice.pub``), so
a command can say ``alice`` and "it is alice's turn"; a key the directory does not name is
shown by its first characters, ``0208fb...``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from client_core.errors import InvalidInput
from xo_core.keyfiles import DEFAULT_KEY_DIR, KeyFileError, MissingKey, key_paths, read_private_key, signer_from
from xo_core.text import clip, printable, short_key

if TYPE_CHECKING:
    from xo_core.signing import Signer

FORBIDDEN_MODE_BITS = 0o037
"""Group write or execute, and any permission for others: only the owner (and the group, to read) may use a key."""
MAX_KEY_FILES = 1000
"""How many ``*.pub`` files are read for names: a key directory is small, a huge one must not slow every command."""
MAX_PUBLIC_KEY_BYTES = 1024
MAX_NAMES_SHOWN = 10
"""Hex characters of a public key shown for people: enough to tell two players apart (the processors' messages
cut keys the same way)."""


def load_signer(key_dir: Path, name: str, prog: str) -> Signer:
    """``name``'s signer, if its private key file exists, is private, and holds a key; else a player's error."""
    try:
        key = read_private_key(key_dir, name)
    except MissingKey:
        raise InvalidInput(missing_key_message(key_dir, name, prog)) from None
    except KeyFileError as error:
        raise InvalidInput(str(error)) from None
    if key.mode & FORBIDDEN_MODE_BITS:
        raise InvalidInput(
            f"private key {key.path} is open to others (mode {key.mode:04o}): whoever can read it can play "
            f"as {name!r}, so {prog} will not use it; make it private with: chmod 600 {key.path}"
        )
    try:
        return signer_from(key)
    except KeyFileError as error:
        raise InvalidInput(str(error)) from None


def missing_key_message(key_dir: Path, name: str, prog: str) -> str:
    """Name the keys that do exist (a typo is the likely cause); suggest a new key only when there are none."""
    private_path, _ = key_paths(key_dir, name)
    existing = private_key_names(key_dir)
    if not existing:
        where = "" if key_dir.expanduser() == DEFAULT_KEY_DIR.expanduser() else f" --key-dir {key_dir}"
        return (
            f"no private key at {private_path}, and no keys in {key_dir}: "
            f"make one with '{prog} keygen {name}{where}'"
        )
    shown = ", ".join(existing[:MAX_NAMES_SHOWN]) + (
        f" and {len(existing) - MAX_NAMES_SHOWN} more" if len(existing) > MAX_NAMES_SHOWN else ""
    )
    return (
        f"no private key named {name!r} in {key_dir}; the keys there are: {shown} "
        "(choose one with --username or XO_USERNAME)"
    )


def private_key_names(key_dir: Path) -> list[str]:
    """The names of the private keys in ``key_dir``, sorted; none if it cannot be read."""
    return sorted(path[: -len(".priv")] for path in _file_names(key_dir) if path.endswith(".priv"))


def _file_names(key_dir: Path) -> list[str]:
    try:
        with os.scandir(key_dir.expanduser()) as entries:
            names = []
            for entry in entries:
                if len(names) == MAX_KEY_FILES:
                    break
                names.append(entry.name)
            return names
    except OSError:
        return []


class KeyNames:
    """Names for public keys, from the ``*.pub`` files of a key directory (the first name in sorted order wins)."""

    def __init__(self, names: dict[str, str]) -> None:
        self._names = names

    @classmethod
    def of_dir(cls, key_dir: Path) -> KeyNames:
        """Read every ``*.pub`` in ``key_dir`` (up to :data:`MAX_KEY_FILES`); unreadable ones are skipped."""
        names: dict[str, str] = {}
        for file_name in sorted(_file_names(key_dir)):
            if not file_name.endswith(".pub"):
                continue
            try:
                with (key_dir.expanduser() / file_name).open("rb") as handle:
                    key = handle.read(MAX_PUBLIC_KEY_BYTES).decode("ascii").strip()
            except (OSError, UnicodeDecodeError):
                continue
            if key:
                names.setdefault(key, file_name[: -len(".pub")])
        return cls(names)

    def name(self, public_key: str) -> str | None:
        """The name of ``public_key`` in the key directory, if there is one."""
        return self._names.get(public_key) if public_key else None


NO_NAMES = KeyNames({})


def key_label(key: str, names: KeyNames = NO_NAMES, name_width: int | None = None) -> str:
    """A player as people read them: ``alice`` for a key named in the key directory, else ``0208fb...``; escaped.

    A name alone, never ``alice (0208fb...)``: the name is unique in the key
    directory, and the full key is ``--json``'s. Keys come from state, which any
    processor may have written, so even a key is escaped; ``name_width`` clips the
    name for a table column.
    """
    name = names.name(key)
    if name is None:
        return printable(short_key(key))
    return printable(name) if name_width is None else clip(name, name_width)
