"""Key files in the layout ``sawtooth keygen`` writes: ``<dir>/<name>.priv|.pub``, hex.

Sharing the layout means a player's existing Sawtooth keys work with xo and keys
made by ``xo keygen`` work with every other Sawtooth tool.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from xo_core.signing import Signer

DEFAULT_KEY_DIR = Path("~/.sawtooth/keys")
PRIVATE_MODE = 0o600
PUBLIC_MODE = 0o666  # narrowed by the umask, as for any file the user creates
MAX_KEY_FILE_BYTES = 4096  # a key is 64 hex characters: anything far longer is not one


class KeyFileError(Exception):
    """A key file that is missing, unreadable or not a key."""


class MissingKey(KeyFileError):
    """No private key file of that name."""


class PrivateKeyFile(NamedTuple):
    """A private key file as read: its text, and its permission bits (to judge who else can read it)."""

    path: Path
    text: str
    mode: int


def key_paths(key_dir: Path, name: str) -> tuple[Path, Path]:
    """Return the private and public key paths of ``name`` in ``key_dir``."""
    key_dir = key_dir.expanduser()
    return key_dir / f"{name}.priv", key_dir / f"{name}.pub"


def read_private_key(key_dir: Path, name: str) -> PrivateKeyFile:
    """Read ``name``'s private key file; its mode comes from the open file, so it is the mode of what was read."""
    private_path, _ = key_paths(key_dir, name)
    try:
        with private_path.open("rb") as handle:
            mode = stat.S_IMODE(os.fstat(handle.fileno()).st_mode)
            text = handle.read(MAX_KEY_FILE_BYTES).decode("ascii")
    except FileNotFoundError:
        raise MissingKey(f"no private key at {private_path} (create one with 'xo keygen {name}')") from None
    except (OSError, UnicodeDecodeError) as error:
        raise KeyFileError(f"cannot read private key {private_path}: {error}") from None
    return PrivateKeyFile(private_path, text, mode)


def signer_from(key: PrivateKeyFile) -> Signer:
    """The signer of a private key file's text; the error names the file."""
    from xo_core.signing import Signer  # noqa: PLC0415 - the crypto library loads only when a key is read

    try:
        return Signer.from_hex(key.text)
    except ValueError as error:
        raise KeyFileError(f"{key.path} does not hold a private key: {error}") from None


def load_signer(key_dir: Path, name: str) -> Signer:
    """Read ``name``'s private key; the error says which file and what is wrong."""
    return signer_from(read_private_key(key_dir, name))


def write_key_pair(key_dir: Path, name: str, signer: Signer, *, overwrite: bool = False) -> tuple[Path, Path]:
    """Write ``signer`` as ``name``'s key pair: both files, or none that this call created.

    Creating with ``O_EXCL`` makes "is the name free?" and "take it" one step, so
    two ``keygen`` runs cannot both believe they made the key. The private file
    is 0600 before the key goes in, never chmod-ed after the fact: created so,
    and set so through the open descriptor when it is overwritten. A half-written
    pair is worse than none (a public key that does not match the private one),
    so a failure removes the files this call created.
    """
    private_path, public_path = key_paths(key_dir, name)
    private_path.parent.mkdir(parents=True, exist_ok=True)
    created: list[Path] = []
    files = ((private_path, signer.private_key_hex, True), (public_path, signer.public_key, False))
    try:
        for path, text, secret in files:
            fd, is_new = open_for_writing(path, PRIVATE_MODE if secret else PUBLIC_MODE, overwrite=overwrite)
            if is_new:
                created.append(path)
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                if secret:
                    os.fchmod(handle.fileno(), PRIVATE_MODE)
                handle.write(text + "\n")
    except BaseException:
        for path in created:
            path.unlink(missing_ok=True)
        raise
    return private_path, public_path


def open_for_writing(path: Path, mode: int, *, overwrite: bool) -> tuple[int, bool]:
    """A descriptor to write ``path`` through, and whether this call created the file."""
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), True
    except FileExistsError:
        if not overwrite:
            raise KeyFileError(f"{path} already exists (use --force to overwrite)") from None
    return os.open(path, os.O_WRONLY | os.O_TRUNC), False
