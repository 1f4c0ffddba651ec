"""Which channels an offerer joins: those opened on its own open offers, within their counts and its chips. Pure.

A running ``chips offer`` reads the chain and asks this which funding channels to pay
into. A channel is joined only when it is the accept of an offer this process published
(:func:`chips_client.offers.accept_number`: the same terms to the chip, the offer's name),
the offer is still open, fewer than its count were joined, the accepter's deposit is in
and the offerer's own is not, and the offerer's free chips cover the deposit: an accept
it cannot fund is left alone (the accepter cancels it and gets their deposit back).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from chips_client.offers import SignedOffer, accept_number
from chips_tp.state import FUNDING, Channel


@dataclass
class Published:
    """An offer this process published, how many accepts it may take, and the channels it joined so far."""

    signed: SignedOffer
    count: int
    joined: set[bytes] = field(default_factory=set)

    @property
    def full(self) -> bool:
        """Whether as many accepts were joined as the offer allows: time to withdraw it."""
        return len(self.joined) >= self.count


class Decision(NamedTuple):
    """A funding channel that is an accept of ``offer``, and whether it is joined (else ``reason`` says why not)."""

    channel: Channel
    offer: Published
    join: bool
    reason: str


def decide(offers: list[Published], channels: list[Channel], balance: int, now: float) -> list[Decision]:
    """What to do with each funding channel that accepts one of ``offers``. Nothing is changed: the caller records
    a join once it committed. Within one call the joins proposed come out of ``balance`` and the offers' counts as
    it goes, so one listing never overcommits the offerer."""
    decisions = []
    taken = {id(published): len(published.joined) for published in offers}
    for channel in channels:
        if channel.status != FUNDING or channel.funded[1] or not channel.funded[0]:
            continue
        for published in offers:
            offer = published.signed.offer
            if channel.id in published.joined or accept_number(offer, channel.fixed, published.count) is None:
                continue
            deposit = channel.fixed.deposits[1]
            if offer.expires <= now:
                reason = "the offer had expired"
            elif taken[id(published)] >= published.count:
                reason = f"all {published.count} accepts were taken"
            elif deposit > balance:
                reason = f"your {balance} free chips cannot cover its {deposit} deposit"
            else:
                reason = ""
                balance -= deposit
                taken[id(published)] += 1
            decisions.append(Decision(channel, published, not reason, reason))
            break
    return decisions
