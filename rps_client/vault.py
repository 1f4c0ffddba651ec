"""The vault: where ``rps`` keeps each throw and its salt from the commit until the reveal.

A commitment can be revealed only with its throw and salt, and a salt lost is a
round lost (the opponent claims the game after the time-out). So the vault is
written before the commit is submitted (a crash after submitting never loses the
salt), atomically (a temporary file, fsync, rename, fsync of the directory: a crash
mid-write leaves the old vault or the new one, never half of one), under a lock (two
``rps`` processes of one player never lose each other's entries), and private
(mode 0600 in a 0700 directory: whoever reads a salt before the reveal knows the
throw). Nothing in it is ever printed; messages name the file, never its contents.

One file per key, beside the keys: ``KEY_DIR/rps-vault/<public key>.json``, so it
follows ``--key-dir`` and stays with the key even if the key file is renamed. An
entry is found by its commitment, the bytes the chain holds: that alone tells which
throw was committed, also when a commit that never made it left an entry behind, or
when a game was deleted and created again under the same name. An entry is removed
once its reveal has committed (the salt is public then), or once its game has moved
past its round (it can never be revealed).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final, NamedTuple

from client_core.errors import InvalidInput
from rps_tp.commitment import commitment
from rps_tp.game import CONCLUDED, MAX_ROUNDS, PLAYING_GAME, SALT_BYTES, THROWS, Game

VAULT_DIR: Final = "rps-vault"
FORMAT: Final = "rps vault 1"
FORBIDDEN_MODE_BITS: Final = 0o077
"""Any permission for the group or others: a salt read before the reveal gives the throw away."""
MAX_VAULT_BYTES: Final = 16 * 1024 * 1024


class VaultEntry(NamedTuple):
    """One committed (or about to be committed) throw: what its reveal needs."""

    name: str
    round: int
    throw: str
    salt: bytes

    def commitment(self, player: str) -> bytes:
        """The commitment ``player`` makes with this entry (the preimage binds the player's key)."""
        return commitment(self.name, self.round, player, self.throw, self.salt)


class VaultProblem(InvalidInput):
    """The vault cannot be read or written: nothing is submitted, and nothing in it is overwritten."""


class Vault:
    """The vault of the key ``public_key``, in the file ``path``."""

    def __init__(self, path: Path, public_key: str) -> None:
        self.path = path
        self.public_key = public_key

    @classmethod
    def of(cls, key_dir: Path, public_key: str) -> Vault:
        """The vault beside the keys in ``key_dir``, for ``public_key``."""
        return cls(key_dir.expanduser() / VAULT_DIR / f"{public_key}.json", public_key)

    def find(self, commitment_bytes: bytes) -> VaultEntry | None:
        """The entry whose commitment is ``commitment_bytes`` (as the chain holds it), if the vault has it."""
        return self._read().get(commitment_bytes)

    def entries(self) -> list[VaultEntry]:
        return list(self._read().values())

    def add(self, entry: VaultEntry, *, forget: Callable[[VaultEntry], bool] | None = None) -> None:
        """Keep ``entry`` for good (on disk when this returns), dropping the entries ``forget`` says are spent."""
        with self._locked():
            entries = self._read()
            kept = {key: old for key, old in entries.items() if forget is None or not forget(old)}
            kept[entry.commitment(self.public_key)] = entry
            self._write(kept)

    def forget(self, spent: Callable[[VaultEntry], bool]) -> None:
        """Remove the entries ``spent`` selects (revealed, or past their round); no write if there are none."""
        if not self.path.exists():
            return
        with self._locked():
            entries = self._read()
            kept = {key: entry for key, entry in entries.items() if not spent(entry)}
            if len(kept) != len(entries):
                self._write(kept)

    # --- the file ---

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """An exclusive lock on ``<vault>.lock`` for a read-modify-write: concurrent writers never lose an entry."""
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            descriptor = os.open(self.path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as error:
            raise self._problem("cannot write", error) from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            yield
        finally:
            os.close(descriptor)

    def _read(self) -> dict[bytes, VaultEntry]:
        """Every entry by commitment; an empty vault if there is no file yet."""
        try:
            descriptor = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return {}
        except OSError as error:
            raise self._problem("cannot read", error) from None
        with os.fdopen(descriptor, "rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode & 0o777
            if mode & FORBIDDEN_MODE_BITS:
                raise VaultProblem(
                    f"the rps vault {self.path} is open to others (mode {mode:04o}): whoever can read it sees "
                    "your throws before you reveal them, so rps will not use it; make it private with: "
                    f"chmod 600 {self.path}"
                )
            data = handle.read(MAX_VAULT_BYTES + 1)
        try:
            if len(data) > MAX_VAULT_BYTES:
                raise ValueError(f"larger than {MAX_VAULT_BYTES} bytes")
            return self._entries(json.loads(data))
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            raise VaultProblem(
                f"the rps vault {self.path} does not read ({error}); rps will not overwrite it, since it may hold "
                "salts you need: repair it or move it away"
            ) from None

    def _entries(self, document: Any) -> dict[bytes, VaultEntry]:
        if document.get("format") != FORMAT or document.get("public_key") != self.public_key:
            raise ValueError(f"not the {FORMAT!r} of key {self.public_key[:6]}...")
        entries: dict[bytes, VaultEntry] = {}
        for item in document["throws"]:
            entry = VaultEntry(item["name"], item["round"], item["throw"], bytes.fromhex(item["salt"]))
            if not (
                isinstance(entry.name, str)
                and isinstance(entry.round, int)
                and 1 <= entry.round <= MAX_ROUNDS
                and entry.throw in THROWS
                and len(entry.salt) == SALT_BYTES
            ):
                raise ValueError("an entry is not a throw rps made")
            key = entry.commitment(self.public_key)
            if item["commitment"] != key.hex():
                raise ValueError("an entry's commitment does not match its throw and salt")
            entries[key] = entry
        return entries

    def _write(self, entries: dict[bytes, VaultEntry]) -> None:
        """Replace the file atomically and durably: temporary file (0600), fsync, rename, fsync of the directory."""
        document = {
            "format": FORMAT,
            "public_key": self.public_key,
            "throws": [
                {
                    "name": entry.name,
                    "round": entry.round,
                    "throw": entry.throw,
                    "salt": entry.salt.hex(),
                    "commitment": key.hex(),
                }
                for key, entry in entries.items()
            ],
            "written_at": int(time.time()),
        }
        data = (json.dumps(document, indent=2) + "\n").encode("utf-8")
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            temporary.unlink(missing_ok=True)
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.fchmod(descriptor, 0o600)
                view = memoryview(data)
                while view:
                    view = view[os.write(descriptor, view) :]
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
            os.replace(temporary, self.path)
            directory = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
        except OSError as error:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
            raise self._problem("cannot write", error) from None

    def _problem(self, what: str, error: OSError) -> VaultProblem:
        return VaultProblem(f"{what} the rps vault {self.path}: {error.strerror or error}")


def spent_in(name: str, game: Game | None) -> Callable[[VaultEntry], bool]:
    """The entries of the game ``name`` that can never be revealed, now that it stands as ``game``.

    Rounds it has moved past, every round once it is over, every entry once it is gone
    (``None``): a reveal must be for the current round of a game in play.
    """

    def spent(entry: VaultEntry) -> bool:
        if entry.name != name:
            return False
        if game is None:
            return True
        if game.state == PLAYING_GAME:
            return entry.round < game.round
        return game.state == CONCLUDED and entry.round <= game.round

    return spent
