"""Who runs a command and where it talks to, resolved once from its flags at the command's edge.

A command turns its ``argparse.Namespace`` into a :class:`Caller` first thing; the code below
takes that small typed value, never the Namespace. Resolving here keeps the precedence rules
(flag, then ``XO_*`` environment, then default) the same everywhere. What can only be known
when it is used stays lazy: the password is asked for when a REST client is made, and the
user's name is judged when a key is looked up, so ``xo list`` works for a user without one.
"""

from __future__ import annotations

import argparse
import getpass
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from client_core.arguments import AUTH_PASSWORD_ENV, AUTH_USER_ENV, DEFAULT_URL, KEY_DIR_ENV, URL_ENV, USERNAME_ENV
from client_core.arguments import environment_default as from_env
from client_core.errors import InvalidInput, UsageError
from client_core.keys import KeyNames, load_signer
from client_core.rest import RestClient, normalize_url
from xo_core.keyfiles import DEFAULT_KEY_DIR, key_paths

if TYPE_CHECKING:
    from xo_core.signing import Signer


@dataclass(frozen=True)
class Where:
    """The REST API a command talks to: its URL, HTTP Basic credentials as given, and ``-v`` tracing."""

    url: str
    """Normalised (scheme, no trailing slash); from ``--url``, else ``$XO_URL``, else the local default."""
    auth_user: str | None
    auth_password: str | None
    """As given (flag, else environment); None with a user means "ask on the terminal" when a client is made."""
    prog: str
    """The command's name (``xo``, ``rps``, ``chips``), that ``-v`` lines start with."""
    verbose: bool

    @classmethod
    def of(cls, args: argparse.Namespace) -> Where:
        """From ``--url``, ``--auth-user``, ``--auth-password`` and ``-v``; an explicit ``--url ""`` is refused.

        An empty URL is not read as "the default": a script that builds one has a bug,
        and talking to some other ledger instead would hide it.
        """
        url = from_env(getattr(args, "url", None), URL_ENV)
        try:
            url = normalize_url(DEFAULT_URL if url is None else url)
        except ValueError as error:
            raise UsageError(f"argument --url: {error}") from None
        user = from_env(getattr(args, "auth_user", None), AUTH_USER_ENV)
        password_flag = getattr(args, "auth_password", None)
        if user is None and password_flag is not None:
            raise UsageError("--auth-password needs --auth-user")
        password = from_env(password_flag, AUTH_PASSWORD_ENV) if user is not None else None
        return cls(url, user, password, getattr(args, "prog", ""), bool(getattr(args, "verbose", 0)))

    def rest_client(self) -> RestClient:
        """A client for :attr:`url`, with HTTP Basic credentials when given (the password asked for now if missing)."""
        return RestClient(self.url, auth=self.credentials(), trace=self.tracer())

    def credentials(self) -> tuple[str, str] | None:
        """``(user, password)`` for HTTP Basic, prompting for the password when only the user is known."""
        if self.auth_user is None:
            return None
        password = self.auth_password if self.auth_password is not None else ask_password(self.auth_user, self.url)
        return self.auth_user, password

    def tracer(self) -> Callable[[str], None] | None:
        """With ``-v``, what writes one line per HTTP request to stderr, as ``<command>: GET /state/... -> 200 ...``."""
        if not self.verbose:
            return None
        prog = self.prog

        def trace(line: str) -> None:
            sys.stderr.write(f"{prog}: {line}\n")

        return trace


@dataclass(frozen=True)
class Who:
    """The user's key: its name as given (not judged yet) and the directory of key files."""

    username: str | None
    """``--username``, else ``$XO_USERNAME``, else the operating-system user; None when none can tell."""
    username_flag: str | None
    """``--username`` exactly as typed, for the commands a message suggests, so they run as shown."""
    key_dir: Path
    """``--key-dir``, else ``$XO_KEY_DIR``, else where ``sawtooth keygen`` puts keys, so both tools share one set."""

    @classmethod
    def of(cls, args: argparse.Namespace, username: str | None = None) -> Who:
        """From ``--username`` (or ``username`` when a command names the key itself) and ``--key-dir``."""
        flag = getattr(args, "username", None)
        given = from_env(username if username is not None else flag, USERNAME_ENV)
        key_dir = from_env(getattr(args, "key_dir", None), KEY_DIR_ENV)
        return cls(
            given if given is not None else os_user(),
            flag,
            Path(key_dir).expanduser() if key_dir else DEFAULT_KEY_DIR.expanduser(),
        )

    def name(self) -> str:
        """The key name, if it can name key files: the error says how to give one otherwise."""
        if self.username is None:
            raise InvalidInput(f"cannot tell who you are: give --username or set {USERNAME_ENV}")
        return checked_key_name(self.username)

    def signer(self, family: str) -> Signer:
        """The user's key for ``family``'s transactions, from the key directory."""
        return load_signer(self.key_dir, self.name(), family)

    def own_public_key(self) -> str | None:
        """The user's public key from ``<key dir>/<name>.pub`` if there is one, to mark "you" in output.

        Read as text, not derived from the private key: showing a game must not need
        the crypto library, nor fail because the user has no key.
        """
        try:
            name = self.name()
        except InvalidInput:
            return None
        try:
            return key_paths(self.key_dir, name)[1].read_text(encoding="ascii").strip() or None
        except (OSError, UnicodeDecodeError):
            return None

    def key_names(self) -> KeyNames:
        """Names for the public keys in the key directory, to show ``alice`` instead of a bare key."""
        return KeyNames.of_dir(self.key_dir)


@dataclass(frozen=True)
class Caller:
    """Who runs a command and where it talks to: what every networked command needs from its flags."""

    who: Who
    where: Where

    @classmethod
    def of(cls, args: argparse.Namespace) -> Caller:
        """Resolve the shared flags of ``args`` once, at the command's edge."""
        return cls(Who.of(args), Where.of(args))


def key_name(given: str | None) -> str:
    """``given`` (else ``$XO_USERNAME``) if it can name key files, else the operating-system user's name."""
    given = from_env(given, USERNAME_ENV)
    name = given if given is not None else os_user()
    if name is None:
        raise InvalidInput(f"cannot tell who you are: give --username or set {USERNAME_ENV}")
    return checked_key_name(name)


def checked_key_name(name: str) -> str:
    """``name`` if it can name key files (no path, not empty)."""
    if not name or "/" in name or name in (".", ".."):
        raise InvalidInput(f"{name!r} cannot be a key name")
    return name


def os_user() -> str | None:
    """The login name, or None where the system cannot tell (a container user with no passwd entry)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return None


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
