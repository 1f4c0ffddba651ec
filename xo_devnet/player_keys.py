"""Ready-made player keys, so that a newcomer can play the moment the devnet is up.

Keys already in the key directory are players' identities: they are read, never
replaced, even when unreadable (that is reported instead).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xo_core.keyfiles import KeyFileError, key_paths, load_signer, write_key_pair
from xo_core.signing import Signer

PLAYERS = ("alice", "bob")


@dataclass(frozen=True)
class PlayerKey:
    """A player's key as found or made: ``public_key`` is None when an existing file could not be read."""

    name: str
    public_key: str | None
    created: bool
    problem: str | None = None


def ensure_player_keys(key_dir: Path, names: tuple[str, ...] = PLAYERS) -> list[PlayerKey]:
    """Create each named key pair that does not exist yet; report every one."""
    return [_ensure(key_dir, name) for name in names]


def _ensure(key_dir: Path, name: str) -> PlayerKey:
    private_path, public_path = key_paths(key_dir, name)
    if private_path.exists() or public_path.exists():
        try:
            return PlayerKey(name, load_signer(key_dir, name).public_key, created=False)
        except KeyFileError as error:
            return PlayerKey(name, None, created=False, problem=str(error))
    signer = Signer.generate()
    try:
        write_key_pair(key_dir, name, signer)
    except (KeyFileError, OSError) as error:
        return PlayerKey(name, None, created=False, problem=f"cannot write {private_path}: {error}")
    return PlayerKey(name, signer.public_key, created=True)
