"""What every networked command needs from its flags: the REST client, the key, the user's name.

Resolving these in one place keeps each command about its own job and makes the
precedence rules (flag, then environment, then default) the same everywhere.
"""

from __future__ import annotations

import argparse
import getpass
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

from client_core.arguments import AUTH_PASSWORD_ENV, AUTH_USER_ENV, DEFAULT_URL, KEY_DIR_ENV, URL_ENV, USERNAME_ENV
from client_core.arguments import environment_default as from_env
from client_core.errors import InvalidInput, UsageError
from client_core.keys import KeyNames
from client_core.rest import RestClient, normalize_url
from xo_core.keyfiles import DEFAULT_KEY_DIR, key_paths


def rest_client(args: argparse.Namespace) -> RestClient:
    """A client for ``--url`` (or ``$XO_URL``), with HTTP Basic credentials when given.

    An explicit ``--url ""`` is refused rather than read as "the default": a
    script that builds an empty URL has a bug, and talking to some other
    ledger instead would hide it.
    """
    url = from_env(args.url, URL_ENV)
    try:
        url = normalize_url(DEFAULT_URL if url is None else url)
    except ValueError as error:
        raise UsageError(f"argument --url: {error}") from None
    return RestClient(url, auth=credentials(args, url), trace=tracer(args))


def credentials(args: argparse.Namespace, url: str) -> tuple[str, str] | None:
    """``(user, password)`` for HTTP Basic, prompting for the password when only the user is known."""
    user = from_env(args.auth_user, AUTH_USER_ENV)
    password = from_env(args.auth_password, AUTH_PASSWORD_ENV)
    if user is None:
        if args.auth_password is not None:
            raise UsageError("--auth-password needs --auth-user")
        return None
    if password is None:
        password = ask_password(user, url)
    return user, password


def ask_password(user: str, url: str) -> str:
    """Prompt on the terminal without echo; with no terminal, say how to pass the password instead.

    ``getpass`` would otherwise fall back to reading stdin with echo on, after a
    multi-line warning: in a script that either hangs or reads the wrong input.
    Its own test for "can I hide what is typed" is the one used here, so a
    player whose stdin is redirected can still type at the terminal.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("error", getpass.GetPassWarning)
        try:
            return getpass.getpass(f"Password for {user} at {url}: ")
        except getpass.GetPassWarning:
            raise UsageError(f"--auth-user needs a password: give --auth-password or set {AUTH_PASSWORD_ENV}") from None
        except EOFError:
            raise InvalidInput(f"no password given for {user!r}") from None


def key_dir(args: argparse.Namespace) -> Path:
    """``--key-dir`` (or ``$XO_KEY_DIR``), else where ``sawtooth keygen`` puts keys, so both tools share one set."""
    given = from_env(args.key_dir, KEY_DIR_ENV)
    return Path(given).expanduser() if given else DEFAULT_KEY_DIR.expanduser()


def username(args: argparse.Namespace) -> str:
    """The key name: ``--username`` (or ``$XO_USERNAME``), else the operating-system user, as the reference client."""
    return key_name(args.username)


def key_name(given: str | None) -> str:
    """``given`` (else ``$XO_USERNAME``) if it can name key files, else the operating-system user's name."""
    given = from_env(given, USERNAME_ENV)
    name = given if given is not None else os_user()
    if name is None:
        raise InvalidInput(f"cannot tell who you are: give --username or set {USERNAME_ENV}")
    if not name or "/" in name or name in (".", ".."):
        raise InvalidInput(f"{name!r} cannot be a key name")
    return name


def os_user() -> str | None:
    """The login name, or None where the system cannot tell (a container user with no passwd entry)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return None


def own_public_key(args: argparse.Namespace) -> str | None:
    """The user's public key from ``<key dir>/<name>.pub`` if there is one, to mark "you" in output.

    Read as text, not derived from the private key: showing a game must not need
    the crypto library, nor fail because the user has no key.
    """
    try:
        name = username(args)
    except InvalidInput:
        return None
    try:
        return key_paths(key_dir(args), name)[1].read_text(encoding="ascii").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def key_names(args: argparse.Namespace) -> KeyNames:
    """Names for the public keys in the key directory, to show ``alice`` instead of a bare key."""
    return KeyNames.of_dir(key_dir(args))


def tracer(args: argparse.Namespace) -> Callable[[str], None] | None:
    """With ``-v``, what writes one line per HTTP request to stderr, as ``<command>: GET /state/... -> 200 ...``."""
    if not args.verbose:
        return None
    prog: str = args.prog

    def trace(line: str) -> None:
        sys.stderr.write(f"{prog}: {line}\n")

    return trace
