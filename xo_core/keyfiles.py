"""Key files in the layout ``sawtooth keygen`` writes: ``<dir>/<name>.priv|.pub``, hex.

Sharing the layout means a player's existing Sawtooth keys work with xo and keys
made by ``xo keygen`` work with every other Sawtooth tool.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xo_core.signing import Signer

DEFAULT_KEY_DIR = Path("~/.sawtooth/keys")


class KeyFileError(Exception):
    """A key file that is missing, unreadable or not a key."""


def key_paths(key_dir: Path, name: str) -> tuple[Path, Path]:
    """Return the private and public key paths of ``name`` in ``key_dir``."""
    key_dir = key_dir.expanduser()
    return key_dir / f"{name}.priv", key_dir / f"{name}.pub"


def load_signer(key_dir: Path, name: str) -> Signer:
    """Read ``name``'s private key; the error says which file and what is wrong."""
    private_path, _ = key_paths(key_dir, name)
    try:
        text = private_path.read_text(encoding="ascii")
    except FileNotFoundError:
        raise KeyFileError(f"no private key at {private_path} (create one with 'xo keygen {name}')") from None
    except (OSError, UnicodeDecodeError) as error:
        raise KeyFileError(f"cannot read private key {private_path}: {error}") from None
    from xo_core.signing import Signer  # noqa: PLC0415 - the crypto library loads only when a key is read

    try:
        return Signer.from_hex(text)
    except ValueError as error:
        raise KeyFileError(f"{private_path} does not hold a private key: {error}") from None


def write_key_pair(key_dir: Path, name: str, signer: Signer, *, overwrite: bool = False) -> tuple[Path, Path]:
    """Write ``signer`` as ``name``'s key pair; the private file is created mode 0600.

    The private key is never written with looser permissions, not even for an
    instant: the file is created with 0600 rather than chmod-ed afterwards.
    """
    private_path, public_path = key_paths(key_dir, name)
    if not overwrite:
        for path in (private_path, public_path):
            if path.exists():
                raise KeyFileError(f"{path} already exists (use --force to overwrite)")
    private_path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    fd = os.open(private_path, flags, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        os.fchmod(handle.fileno(), 0o600)
        handle.write(signer.private_key_hex + "\n")
    public_path.write_text(signer.public_key + "\n", encoding="ascii")
    return private_path, public_path
