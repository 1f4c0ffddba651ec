"""What players send each other through the broker: a signed state, as canonical CBOR, on the recipient's topic,
and the broker client id each player connects with.

A message is ``{"state": bytes, "signatures": [sig / null, sig / null]}``, the
``signed`` of the specification's payloads, so what a player receives is exactly what
either of them can send to the chain. The broker is untrusted: nothing in a message is
believed until its signatures verify (:mod:`chips_client.engine`).
"""

from __future__ import annotations

from typing import Final

from chips_tp.channel import SIGNATURE_BYTES
from chips_tp.ops import SignedState
from client_core.broker import private_client_id
from xo_core import canonical
from xo_core.canonical import Malformed
from xo_core.signing import Signer

TOPIC_ROOT: Final = "xo/chips"
#: A state is a few hundred bytes; anything much bigger is junk, refused before decoding.
MAX_MESSAGE_BYTES: Final = 4096


def topic(channel_id: bytes, recipient: str) -> str:
    """``xo/chips/<channel id hex>/<recipient public key>``: where ``recipient`` reads the channel's messages."""
    return f"{TOPIC_ROOT}/{channel_id.hex()}/{recipient}"


def client_id(signer: Signer, channel_id: bytes) -> str:
    """The player's broker client id for the channel: the same in ``chips play``, ``chips bot`` and ``xo web``, so
    one persistent session keeps what was sent while the player was away; derived from their private key, so
    nobody else can take the session over by connecting with it."""
    return private_client_id(signer, "chips", channel_id.hex())


def encode_message(signed: SignedState) -> bytes:
    """A signed state as the bytes sent to the opponent, in the canonical encoding they verify."""
    return canonical.encode({"state": signed.state, "signatures": list(signed.signatures)})


def decode_message(data: bytes) -> SignedState:
    """The signed state in ``data``; :class:`Malformed` saying why not."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise Malformed(f"a message of {len(data)} bytes is over the {MAX_MESSAGE_BYTES} a state needs")
    value = canonical.decode(data, "the message")
    fields = canonical.fields(value, "a message", ("state", "signatures"))
    if not isinstance(fields["state"], bytes):
        raise Malformed("'state' must be a byte string")
    signatures = canonical.array(fields["signatures"], "'signatures'", 2)
    if len(signatures) != 2:
        raise Malformed("'signatures' must list 2 entries")
    checked = [None if s is None else canonical.byte_string(s, "a signature", SIGNATURE_BYTES) for s in signatures]
    canonical.check_canonical(value, data, "the message")
    return SignedState(fields["state"], (checked[0], checked[1]))


def state_channel(data: bytes) -> bytes | None:
    """The channel id the state in the message ``data`` names, or None when ``data`` holds no readable state.

    Read without the app's rules: all it takes to tell which channel a message is about,
    so that evidence is filed under its own channel (:meth:`chips_client.store.Store.keep_evidence`).
    """
    try:
        value = canonical.decode(decode_message(data).state, "the state")
    except Malformed:
        return None
    channel = value.get("channel") if isinstance(value, dict) else None
    return channel if isinstance(channel, bytes) else None
