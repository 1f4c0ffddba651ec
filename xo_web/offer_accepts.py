"""An offer accepted from the page: a channel opened on its exact terms, the offerer's join waited for, the match.

``POST /api/chips/accept`` opens, for the tab's player, the channel the offer's rules name
(:func:`chips_client.offers.channel_fixed`, the first ``k`` whose channel the chain does
not hold yet, named :func:`chips_client.offers.channel_name`) with the player's deposit,
and answers at once. The offerer's ``chips offer`` (or their own ``xo web``) joins it by
itself; a thread here waits for that, a bounded time (:data:`JOIN_SECONDS`), reading the
channel at each new block (:meth:`OfferAccepts.block_committed`) and every
:data:`POLL_SECONDS`, and then the match is played on the page as any staked match is
(:class:`xo_web.chips_matches.Matches`), from the block that holds the join.
If nobody joins in time the channel is cancelled, the deposit back, and the page is told.

Blocking (``http.client``): run in worker threads.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Final

from chips_client import transactions as tx
from chips_client.channels import address_of, rounds_of
from chips_client.narration import player as known_as
from chips_client.offers import SignedOffer, channel_fixed, channel_name
from chips_client.store import ChannelTerms
from chips_tp.channel import Fixed, channel_id
from chips_tp.state import FUNDING
from client_core.errors import CommandError
from xo_core.signing import Signer
from xo_core.text import quoted
from xo_web.chips_desk import ChipsDesk
from xo_web.chips_matches import Matches
from xo_web.errors import ApiError
from xo_web.offer_feed import OfferFeed
from xo_web.sender import refused, unavailable

Json = dict[str, Any]
JOIN_SECONDS: Final = 60.0
"""How long an accept waits for the offerer's join before its channel is cancelled (the deposit back)."""
POLL_SECONDS: Final = 0.5
"""How often the channel of an accept is read for the join, new block or not (for a follower that is away)."""
MAX_TRIES: Final = 100
"""Accepts of one offer a player may have opened: the ``k`` of the channel's name is looked for up to this."""


class OfferAccepts:
    """Accepts of the open offers in ``feed``: opened with ``desk``, played by ``matches`` once joined."""

    def __init__(self, desk: ChipsDesk, matches: Matches, feed: OfferFeed) -> None:
        self.desk, self.matches, self.feed = desk, matches, feed
        self.stop = threading.Event()
        self.waiting: list[threading.Thread] = []
        self._blocks = threading.Condition()
        self._block_count = 0

    def accept(self, player: str, offer_id: str) -> Json:
        """Open the accept's channel for ``player``; a 409 when the offer is not open or is theirs, or the chain
        would refuse the open. The join is waited for afterwards, on a thread of its own."""
        signer = self.desk.player_signer(player)
        try:
            signed = self.feed.find(offer_id)
        except ValueError:
            raise refused("this offer is no longer open: it expired, was withdrawn or taken") from None
        offer = signed.offer
        if offer.offerer == signer.public_key:
            raise refused("this is your own offer: another player accepts it")
        k, fixed, theirs = self.first_unused(signed, signer.public_key)
        if theirs < offer.terms.deposit:
            who = known_as(offer.offerer, signer.public_key, self.desk.names())
            raise refused(f"{who} has {theirs} free chips, too few to cover the deposit of "
                          f"{offer.terms.deposit} now: nothing was opened")  # fmt: skip
        name = channel_name(offer.id, k)
        self.desk.open_fixed(signer, fixed, name, offer.terms.rounds)
        waiter = threading.Thread(target=self.wait_for_join, args=(player, signer, fixed, name),
                                  name=f"xo web: accept {offer.id[:8]}", daemon=True)  # fmt: skip
        self.waiting = [thread for thread in self.waiting if thread.is_alive()] + [waiter]
        waiter.start()
        message = (
            f"Opened channel {quoted(name, None)} on the offer's terms; your deposit of {offer.terms.deposit} chips "
            f"is in. Waiting up to {JOIN_SECONDS:g} s for the offerer to join."
        )
        return {"channel": channel_id(fixed).hex(), "name": name, "message": message}

    def first_unused(self, signed: SignedOffer, me: str) -> tuple[int, Fixed, int]:
        """The first accept number whose channel the chain does not hold, that channel's terms, and the offerer's
        free chips (an accept they cannot cover would never be joined)."""
        try:
            with self.desk.client() as client:
                chain = self.desk.chain(client)
                theirs = chain.balance(signed.offer.offerer)
                for k in range(1, MAX_TRIES + 1):
                    fixed = channel_fixed(signed.offer, me, k)
                    if chain.channel(address_of(fixed)) is None:
                        return k, fixed, theirs
        except CommandError as error:
            raise unavailable(error) from None
        raise refused(f"you have accepted this offer {MAX_TRIES} times already")

    def wait_for_join(self, player: str, signer: Signer, fixed: Fixed, name: str) -> None:
        """The offerer's join, waited for: then the match is played; else the channel is cancelled and the page told."""
        ident, me, game = channel_id(fixed), signer.public_key, fixed.app
        waiting = f"waiting up to {JOIN_SECONDS:g} s for the offerer to join {quoted(name, None)}"
        self.matches.say(me, ident, game, waiting)
        ends = time.monotonic() + JOIN_SECONDS
        record = None
        seen = self._block_count
        while not self.stop.is_set():
            try:
                record = self.desk.record(ident, me)
            except ApiError:
                record = None  # the REST API is away: tried again until the time is up
            if (record is not None and record.status != FUNDING) or time.monotonic() >= ends:
                break
            seen = self._next_block(seen)
        if self.stop.is_set():
            return
        if (record is None or record.status == FUNDING) and not self.cancelled(signer, fixed, name):
            record = self._reread(ident, me)  # the join may have come just before the cancel
        if record is None or record.status == FUNDING:
            return
        try:
            self.matches.start(player, signer, record, ChannelTerms(name, fixed, rounds_of(fixed)))
        except ApiError as error:
            self.matches.say(me, ident, game, f"the match could not start: {error.message}")

    def block_committed(self, _changes: object = None) -> None:
        """A block committed (a listener of the server's follower): it may hold a join, so the waiting accepts read
        their channels now rather than at their next poll."""
        with self._blocks:
            self._block_count += 1
            self._blocks.notify_all()

    def _next_block(self, seen: int) -> int:
        """Wait for a block after the ``seen``-th, the server's stop, or :data:`POLL_SECONDS`; the count of blocks."""
        with self._blocks:
            self._blocks.wait_for(lambda: self._block_count != seen or self.stop.is_set(), POLL_SECONDS)
            return self._block_count

    def _reread(self, ident: bytes, me: str) -> Any:
        try:
            return self.desk.record(ident, me)
        except ApiError:
            return None

    def cancelled(self, signer: Signer, fixed: Fixed, name: str) -> bool:
        """Cancel the accept nobody joined, so its deposit comes back; the page hears either way. False if the chain
        refused (the offerer joined at the last moment, say)."""
        ident, game = channel_id(fixed), fixed.app
        try:
            self.desk.submit(signer, tx.cancel(signer, fixed), f"the cancel of {quoted(name, None)}")
        except ApiError as error:
            failed = f"the cancel of {quoted(name, None)} failed: {error.message}"
            self.matches.say(
                signer.public_key, ident, game, f"the offerer did not join within {JOIN_SECONDS:g} s; {failed}"
            )
            return False
        back = f"channel {quoted(name, None)} is cancelled and your deposit of {fixed.deposits[0]} chips is back"
        self.matches.say(signer.public_key, ident, game, f"the offerer did not join within {JOIN_SECONDS:g} s: {back}")
        return True

    def close(self) -> None:
        """Stop waiting for joins (the server stops): each accept's channel stays as the chain has it."""
        self.stop.set()
        with self._blocks:
            self._blocks.notify_all()
        for thread in self.waiting:
            thread.join(POLL_SECONDS * 4)
