"""Open offers: a player's signed terms for a staked match, which anyone may accept by opening the channel.

An offer is published on the broker, retained, so players who connect later find it. Its
body is canonical CBOR naming the offerer, the channel's terms and an expiry (Unix
seconds), signed as ``["chips/1.0 offer", SHA-256(body)]`` like the family's other
signatures: the tag says what the signature is for, so it never verifies as a state or a
challenge, and the expiry is inside what is signed, so nobody can stretch an offer or
publish one in another player's name. Its id is the SHA-256 of the body.

The accepter opens a channel naming the offerer as second participant, with exactly the
offer's terms and the name ``offer-<first 16 hex digits of its id>-<k>``, ``k`` counting
the accepter's tries from 1; the offerer joins only such a channel, with ``k`` within the
offer's count. Pure: no broker, no chain.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from collections.abc import Mapping
from typing import Final, NamedTuple

from chips_client.channels import MAX_ROUNDS, name_tag, nonce_of, rounds_of, tag_of
from chips_tp.channel import APPS, MAX_AMOUNT, MAX_DURATION, MIN_DURATION, SIGNATURE_BYTES, Fixed
from chips_tp.channel import terms_problem as open_terms_problem
from chips_tp.hashes import sign, signed_by
from xo_core import canonical
from xo_core.canonical import Malformed
from xo_core.public_keys import DESCRIPTION as KEY_DESCRIPTION
from xo_core.public_keys import is_compressed_public_key
from xo_core.signing import Signer

OFFER_PURPOSE: Final = "chips/1.0 offer"
TOPIC_ROOT: Final = "xo/chips/offers"
#: An offer is a few hundred bytes; anything much bigger is junk, refused before decoding.
MAX_OFFER_BYTES: Final = 1024
#: How much of an offer's id names it in a channel name (and in what ``chips offers`` prints).
ID_SHOWN: Final = 16
#: The longest an offer may stay open: a day. A longer one is refused, so a leaked offer cannot haunt a player.
MAX_OFFER_SECONDS: Final = 24 * 60 * 60
_FIELDS: Final = ("challenge", "deposit", "expires", "game", "offerer", "rounds", "serial", "stake")
SERIAL_BYTES: Final = 8


class Terms(NamedTuple):
    """What a match offered is played for: the game, the stake per game or round, each deposit, the rounds to play
    (0: until one cannot cover the stake) and the challenge duration in seconds."""

    game: str
    stake: int
    deposit: int
    rounds: int
    challenge: int


class Offer(NamedTuple):
    """An offer as signed: its offerer, terms, expiry (Unix seconds) and a random serial that makes its id unique."""

    offerer: str
    terms: Terms
    expires: int
    serial: bytes

    @property
    def body(self) -> bytes:
        """The canonical CBOR the offerer signs."""
        t = self.terms
        return canonical.encode({
            "offerer": self.offerer, "game": t.game, "stake": t.stake, "deposit": t.deposit, "rounds": t.rounds,
            "challenge": t.challenge, "expires": self.expires, "serial": self.serial,
        })  # fmt: skip

    @property
    def id(self) -> str:
        """The offer's id: the SHA-256 of its body, in hex."""
        return _id_of(self)


@functools.lru_cache(maxsize=64)
def _id_of(offer: Offer) -> str:
    """An offer's id, hashed once: a house names every accept it looks at by it, a thousand a block."""
    return hashlib.sha256(offer.body).hexdigest()


class SignedOffer(NamedTuple):
    """An offer with its offerer's signature: what is published."""

    offer: Offer
    signature: bytes


def offer_message(body: bytes) -> bytes:
    """The bytes an offerer signs to vouch for an offer's body."""
    return canonical.encode([OFFER_PURPOSE, hashlib.sha256(body).digest()])


def make_offer(signer: Signer, terms: Terms, expires: int) -> SignedOffer:
    """A new offer of ``terms`` by ``signer``, open until ``expires``, signed."""
    if problem := terms_problem(terms):
        raise ValueError(problem)
    offer = Offer(signer.public_key, terms, expires, secrets.token_bytes(SERIAL_BYTES))
    return SignedOffer(offer, sign(signer, offer_message(offer.body)))


def terms_problem(terms: Terms, floor: int = MIN_DURATION) -> str | None:
    """Why chips-tp would refuse the open that accepting an offer of ``terms`` sends, where challenges last at least
    ``floor`` seconds, or None: chips-tp's own check of an open's terms (:func:`chips_tp.channel.terms_problem`),
    not a list of this module's, so a board never lists what the chain would refuse."""
    return open_terms_problem(terms.game, terms.stake, (terms.deposit, terms.deposit), terms.challenge, floor)


def channel_name(offer_id: str, k: int) -> str:
    """The name of the ``k``-th channel an accepter opens on the offer ``offer_id`` (``k`` from 1)."""
    return f"offer-{offer_id[:ID_SHOWN]}-{k}"


def channel_fixed(offer: Offer, accepter: str, k: int) -> Fixed:
    """The terms of the channel the accepter's ``k``-th accept opens: the accepter first, then the offerer."""
    t = offer.terms
    return Fixed(
        (accepter, offer.offerer), t.game, t.stake, (t.deposit, t.deposit), t.challenge,
        nonce_of(channel_name(offer.id, k), t.rounds),
    )  # fmt: skip


def accept_number(offer: Offer, fixed: Fixed, count: int) -> int | None:
    """Which accept (1 to ``count``) of ``offer`` the channel ``fixed`` is, or None when it is not one: the offerer
    second, every term exactly the offer's, and the name the offer's with a number within ``count``."""
    t = offer.terms
    if fixed.participants[1] != offer.offerer or fixed.participants[0] == offer.offerer:
        return None
    offered = (t.game, t.stake, (t.deposit, t.deposit), t.challenge, t.rounds)
    if (fixed.app, fixed.stake, fixed.deposits, fixed.duration, rounds_of(fixed)) != offered:
        return None
    return _accept_tags(offer, count).get(tag_of(fixed))


@functools.lru_cache(maxsize=16)
def _accept_tags(offer: Offer, count: int) -> Mapping[int, int]:
    """The name tag of each of an offer's ``count`` accepts, to its number: computed once per offer, not once per
    channel looked at (a house with 1,000 accepts in a block would hash a million names)."""
    return {name_tag(channel_name(offer.id, k)): k for k in range(1, count + 1)}


def topic(offer: Offer) -> str:
    """``xo/chips/offers/<game>/<offerer>/<id>``: where the offer is retained, one topic per offer."""
    return f"{TOPIC_ROOT}/{offer.terms.game}/{offer.offerer}/{offer.id}"


def subscription(game: str | None = None) -> str:
    """The topic filter of every open offer (of ``game`` only, when given)."""
    return f"{TOPIC_ROOT}/{game or '+'}/#"


def encode_offer(signed: SignedOffer) -> bytes:
    """A signed offer as published: ``{"offer": body, "signature": sig}`` in canonical CBOR."""
    return canonical.encode({"offer": signed.offer.body, "signature": signed.signature})


def decode_offer(data: bytes, now: float, floor: int = MIN_DURATION) -> SignedOffer:
    """The offer in ``data`` if it is well formed, signed by its offerer, open at ``now`` and on terms chips-tp opens
    where challenges last at least ``floor`` seconds; :class:`Malformed` saying why not."""
    if len(data) > MAX_OFFER_BYTES:
        raise Malformed(f"an offer of {len(data)} bytes is over the {MAX_OFFER_BYTES} an offer needs")
    outer = canonical.fields(canonical.decode(data, "the offer"), "an offer", ("offer", "signature"))
    body, signature = outer["offer"], outer["signature"]
    if not isinstance(body, bytes):
        raise Malformed("'offer' must be a byte string")
    canonical.byte_string(signature, "the signature", SIGNATURE_BYTES)
    canonical.check_canonical({"offer": body, "signature": signature}, data, "the offer")
    fields = canonical.fields(canonical.decode(body, "the offer's body"), "an offer's body", _FIELDS)
    canonical.check_canonical(fields, body, "the offer's body")
    offer = _offer_of(fields)
    if not signed_by(offer.offerer, signature, offer_message(body)):
        raise Malformed("the offer is not signed by its offerer")
    if offer.expires <= now:
        raise Malformed("the offer has expired")
    if offer.expires > now + MAX_OFFER_SECONDS:
        raise Malformed(f"an offer stays open at most {MAX_OFFER_SECONDS} s")
    if problem := terms_problem(offer.terms, floor):
        raise Malformed(problem)
    return SignedOffer(offer, signature)


def _offer_of(fields: Mapping[str, object]) -> Offer:
    offerer = canonical.text(fields["offerer"], "'offerer'")
    if not is_compressed_public_key(offerer):
        raise Malformed(f"'offerer' must be {KEY_DESCRIPTION}")
    terms = Terms(
        canonical.choice(fields["game"], "'game'", APPS),
        canonical.whole_number(fields["stake"], "'stake'", 0, MAX_AMOUNT),
        canonical.whole_number(fields["deposit"], "'deposit'", 0, MAX_AMOUNT),
        canonical.whole_number(fields["rounds"], "'rounds'", 0, MAX_ROUNDS),
        canonical.whole_number(fields["challenge"], "'challenge'", 0, MAX_DURATION),
    )  # fmt: skip
    expires = canonical.whole_number(fields["expires"], "'expires'", 0, MAX_AMOUNT)
    return Offer(offerer, terms, expires, canonical.byte_string(fields["serial"], "'serial'", SERIAL_BYTES))
