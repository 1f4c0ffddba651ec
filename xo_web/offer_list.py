"""The open offers the page lists: every retained offer the broker holds, verified, until it expires or is withdrawn.

What arrives is a stranger's bytes: an offer is kept only if it verifies
(:func:`chips_client.offers.decode_offer`: well formed, signed by its offerer, open now,
within the family's limits) and sits on its own topic (:func:`chips_client.offers.topic`),
so an empty retained message there, the offerer's withdrawal, removes it, and a copy
replayed on another topic is refused. Whatever else arrives is counted, never shown. An offer
is listed only while its terms pass chips-tp's own check of the open an accept sends
(:func:`chips_client.offers.terms_problem`), at the chain's challenge floor (:attr:`OfferList.floor`).
Expired offers leave as time passes (:meth:`OfferList.prune`). Pure: no broker, no clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chips_client.offers import ID_SHOWN, SignedOffer, decode_offer, terms_problem, topic
from chips_tp.channel import MIN_DURATION
from client_core.keys import KeyNames
from xo_core.canonical import Malformed
from xo_web.views import shown_name

Json = dict[str, Any]


class OfferList:
    """The verified open offers by topic, and how many messages were refused."""

    def __init__(self) -> None:
        self.offers: dict[str, SignedOffer] = {}
        self.refused = 0
        self.floor = MIN_DURATION
        """The chain's challenge floor: an offer whose challenge is shorter could not be opened, so it is not listed."""

    def received(self, where: str, payload: bytes, now: float) -> bool:
        """A retained message on ``where``: an offer kept, or the topic cleared; whether the list changed."""
        if not payload:
            return self.offers.pop(where, None) is not None
        try:
            signed = decode_offer(payload, now)
        except Malformed:
            self.refused += 1
            return self.offers.pop(where, None) is not None
        if topic(signed.offer) != where:
            self.refused += 1
            return False
        changed = self.offers.get(where) != signed
        self.offers[where] = signed
        return changed

    def clear(self) -> None:
        """Forget every offer: the broker is about to send the retained ones again (a new connection)."""
        self.offers.clear()

    def prune(self, now: float) -> bool:
        """Drop every offer expired at ``now``; whether any was."""
        expired = [where for where, signed in self.offers.items() if signed.offer.expires <= now]
        for where in expired:
            del self.offers[where]
        return bool(expired)

    def next_expiry(self) -> float | None:
        """When the next offer expires (Unix seconds), or None when there is none."""
        return min((signed.offer.expires for signed in self.offers.values()), default=None)

    def open_offers(self, now: float) -> list[SignedOffer]:
        """The offers open at ``now`` on terms the chain opens, soonest to expire first (a copy taken at once: an
        accept reads it from a worker thread while the event loop updates the list)."""
        found = [signed for signed in list(self.offers.values())
                 if signed.offer.expires > now and terms_problem(signed.offer.terms, self.floor) is None]  # fmt: skip
        return sorted(found, key=lambda signed: (signed.offer.expires, signed.offer.id))

    def view(self, now: float, names: KeyNames, rating_of: Callable[[str], Json | None],
             put_back: Callable[[str], int | None] = lambda _offer_id: None) -> list[Json]:  # fmt: skip
        """The open offers as the page lists them (:func:`offer_view`)."""
        return [offer_view(signed, names, rating_of(signed.offer.offerer), put_back(signed.offer.id))
                for signed in self.open_offers(now)]  # fmt: skip


def offer_view(signed: SignedOffer, names: KeyNames, rating: Json | None, put_back: int | None = None) -> Json:
    """One offer for the page: its id, the offerer (their key, the key directory's name for it, their rating), the
    terms, the expiry (Unix seconds) and, for an offer this server posted, how many times it put it back after
    another client took it off the board (else null). A stranger chose only numbers and a key, both checked; names
    are shown."""
    offer, terms = signed.offer, signed.offer.terms
    return {
        "id": offer.id, "short_id": offer.id[:ID_SHOWN],
        "offerer": {"public_key": offer.offerer, "name": shown_name(offer.offerer, names)}, "rating": rating,
        "game": terms.game, "stake": terms.stake, "deposit": terms.deposit, "rounds": terms.rounds,
        "challenge_seconds": terms.challenge, "expires": offer.expires, "put_back": put_back,
    }  # fmt: skip
