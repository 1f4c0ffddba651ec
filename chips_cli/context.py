"""What chips commands make of who runs them and where: the key, the chain, the store, a named player, a channel.

Each takes the part of the :class:`client_core.caller.Caller` it needs (who, where), that the command resolved from
its flags at its edge, and what else it needs as plain values (:class:`Playing`), never the argparse Namespace.
"""

from __future__ import annotations

import argparse
import contextlib
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chips_client.chain import RestChain
from chips_client.channel_feed import ChannelFeed
from chips_client.channels import find_named, rounds_of
from chips_client.store import ChannelTerms, Store, default_path
from chips_tp.channel import channel_id
from chips_tp.state import Channel
from client_core.caller import Where, Who, key_name
from client_core.errors import InvalidInput
from xo_core.keyfiles import key_paths
from xo_core.public_keys import is_compressed_public_key, key_problem
from xo_core.signing import Signer
from xo_core.text import shell_word

if TYPE_CHECKING:
    from client_core.broker import BrokerAddress

DEFAULT_WAIT_SECONDS = 120.0
MIN_ID_PREFIX = 8


def signer(who: Who) -> Signer:
    """The player's ``chips`` key, from the caller's key directory and user name."""
    return who.signer("chips")


def player_flags(who: Who) -> str:
    """``--username NAME`` when the player gave it, for the commands a message suggests, so they run as shown."""
    username = who.username_flag
    return f"--username {shell_word(username)}" if username else ""


def wait_seconds(wait: float | None) -> float:
    """How long to wait for a commit: ``--wait``, or the default when it is absent or unbounded."""
    return DEFAULT_WAIT_SECONDS if wait is None or math.isinf(wait) else wait


@contextlib.contextmanager
def followed(where: Where, address: str, say: Callable[[str], None]) -> Iterator[ChannelFeed | None]:
    """The channel at ``address`` followed through the ledger's events, on a REST connection of its own (not yet
    started: the caller starts it, waiting for a REST API away as it does); stopped at the end. A command's tests
    that fake the chain fake this too (None: the match reads the chain itself)."""
    with where.rest_client() as reader:
        feed = ChannelFeed(reader, address, say=say)
        try:
            yield feed
        finally:
            feed.stop()


@contextlib.contextmanager
def chain(where: Where, key: Signer | None, wait: float | None) -> Iterator[RestChain]:
    """The chain, read through the REST API at ``where`` and signed for with ``key`` (None: read only).

    ``wait`` is the command's ``--wait`` (None: it has none, or it was not given).
    """
    with where.rest_client() as client:
        yield RestChain(client, key, wait_seconds(wait))


def store(who: Who, public_key: str) -> Store:
    """The store of ``public_key`` (see :func:`chips_client.store.default_path`)."""
    return Store(default_path(who.key_dir, public_key))


def player(who: Who, given: str) -> str:
    """The public key ``given`` names: a public key itself, or the name of a key in the key directory.

    Either way it must be a key someone can hold (:func:`xo_core.public_keys.key_problem`, the
    processor's own check): chips sent to anything else are lost for good.
    """
    if is_compressed_public_key(given):
        key = given
    else:
        key_dir = who.key_dir
        try:
            key = key_paths(key_dir, key_name(given))[1].read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            raise InvalidInput(f"{given!r} is neither a public key nor the name of a key in {key_dir}") from None
    if problem := key_problem(key):
        named = "the key" if key == given else f"the public key of {given!r}"
        raise InvalidInput(f"{named} ({key[:8]}...) {problem}")
    return key


def locate(found: list[Channel], given: str, me: str, stored: Store | None = None) -> tuple[Channel, ChannelTerms]:
    """The channel ``given`` names among ``found`` that ``me`` takes part in: by name, or by its id (8+ hex digits)."""
    given_lower = given.lower()
    by_id = [
        c for c in found
        if len(given) >= MIN_ID_PREFIX and c.id.hex().startswith(given_lower) and me in c.fixed.participants
    ]  # fmt: skip
    candidates = by_id or find_named(found, given, me)
    if not candidates:
        raise InvalidInput(f"you take part in no channel {given!r}: 'chips list' shows yours")
    channel = candidates[0]
    known = None if stored is None else stored.channel(channel.id)
    return channel, known or ChannelTerms(given, channel.fixed, rounds_of(channel.fixed))


def label(channel: Channel) -> str:
    """A channel's short label: the first characters of its id, enough to name it on a command line."""
    return channel_id(channel.fixed).hex()[:MIN_ID_PREFIX]


def address(found: Channel) -> str:
    """The state address of ``found``'s channel (imported here so only the commands that need it load it)."""
    from chips_tp.family import channel_address  # noqa: PLC0415

    return channel_address(found.id)


@dataclass(frozen=True)
class Playing:
    """How the player's matches are played, as the command line of ``chips play``, ``bot``, ``offer`` or ``accept``
    says: resolved at its edge, beside the :class:`client_core.caller.Caller`."""

    broker: BrokerAddress
    level: str | None
    """The computer's level when it plays this side (``chips bot``, ``--bot``); None: a person plays."""
    patience: float | None
    """``--patience``: seconds before a silent opponent is challenged (None: the command's default)."""
    auto_respond: bool
    """The computer answers a challenge for a person at half the time left (not ``--no-auto-respond``)."""
    wait: float | None
    """``--wait``, where the command has it."""

    @classmethod
    def of(cls, args: argparse.Namespace, level: str | None) -> Playing:
        """From ``--broker``, ``--patience``, ``--no-auto-respond`` and ``--wait``, those the command has."""
        auto_respond = not getattr(args, "no_auto_respond", False)
        return cls(args.broker, level, args.patience, auto_respond, getattr(args, "wait", None))
