"""Offers made from the page: published for the tab's player, joined when accepted, and the match played on the page.

``POST /api/chips/offer`` signs the offer with the player's key
(:func:`chips_client.offers.make_offer`) and publishes it, retained, through the server's
session on the broker (:class:`chips_client.offer_board.Post`). While any is open the
server reads the chain's channels at each new block (:meth:`OfferPosts.block_committed`:
an accept is joined as soon as it commits), every :data:`POLL_SECONDS` and as an offer
expires, and joins the accepts of its offers as ``chips offer`` does:
:func:`chips_client.offer_desk.decide` says which (the offer's exact terms and name,
within its count of one, while the player's free chips cover the deposit),
:func:`chips_client.transactions.join` pays the deposit in, and the match starts at once
(:class:`xo_web.chips_matches.Matches`), the page told to open it. An offer is withdrawn
(its retained message cleared) when the page asks, once joined, when it expires, and when
the server stops.

Blocking (``http.client``, the broker's acknowledgements): run in worker threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from chips_client import transactions as tx
from chips_client.channels import MAX_ROUNDS, rounds_of
from chips_client.faucet import cannot_cover
from chips_client.narration import player as known_as
from chips_client.offer_board import Post
from chips_client.offer_desk import Published, decide
from chips_client.offers import (
    MAX_OFFER_SECONDS,
    Terms,
    accept_number,
    channel_name,
    make_offer,
    terms_problem,
)
from chips_client.store import ChannelTerms
from chips_tp.channel import APPS as GAMES
from chips_tp.channel import MAX_DURATION, MIN_DURATION
from client_core.broker import BrokerError
from client_core.errors import CommandError
from xo_core.signing import Signer
from xo_core.text import duration, quoted
from xo_web.chips_desk import MAX_AMOUNT, ChipsDesk, parse_player, whole_field
from xo_web.chips_matches import Matches
from xo_web.errors import UNAVAILABLE, ApiError, bad_request
from xo_web.offer_feed import OfferFeed
from xo_web.sender import refused, unavailable

Json = dict[str, Any]
POLL_SECONDS: Final = 1.0
"""How often the chain's channels are read for accepts while the page has an offer open, new block or not (for a
follower that is away)."""
MIN_OPEN_SECONDS: Final = 10
MAX_OFFERS: Final = 16
"""Offers the pages may have open at once (each accepted one becomes a match, and the server plays 16 at most)."""
LOG = logging.getLogger("xo_web")


class OfferRequest(NamedTuple):
    """A page's offer, checked: whose, the terms, and how many seconds it stays open."""

    player: str
    terms: Terms
    seconds: int


def parse_offer(body: object) -> OfferRequest:
    """``{"player", "game", "stake", "deposit", "rounds", "challenge", "seconds"}``, or a 400 saying why."""
    player = parse_player(body)
    assert isinstance(body, dict)
    game = body.get("game")
    if game not in GAMES:
        raise bad_request(f'"game" must be one of {", ".join(GAMES)}')
    terms = Terms(
        game, whole_field(body, "stake", 1, MAX_AMOUNT), whole_field(body, "deposit", 1, MAX_AMOUNT),
        whole_field(body, "rounds", 0, MAX_ROUNDS), whole_field(body, "challenge", MIN_DURATION, MAX_DURATION),
    )  # fmt: skip
    return OfferRequest(player, terms, whole_field(body, "seconds", MIN_OPEN_SECONDS, MAX_OFFER_SECONDS))


@dataclass
class Posted:
    """One offer the page made: whose (the key's name and signer), what the board shows, and the joins so far."""

    player: str
    signer: Signer
    post: Post
    published: Published


class OfferPosts:
    """The pages' open offers, published through ``feed``'s session; accepts joined and played by ``matches``."""

    def __init__(
        self, desk: ChipsDesk, matches: Matches, feed: OfferFeed, clock: Callable[[], float] = time.time
    ) -> None:
        self.desk, self.matches, self.feed, self.clock = desk, matches, feed, clock
        self.posted: dict[str, Posted] = {}
        self._lock = threading.Lock()
        self._told: set[bytes] = set()
        """Accepts not joined whose reason the offerer's page was told (once each, not every poll)."""
        self._chain_said = False
        self._block = asyncio.Event()
        feed.on_reconnect.append(self.republish)

    def post(self, request: OfferRequest) -> Json:
        """Sign and publish the page's offer: a 409 when no accept of it could be opened or joined, a 503 without a
        broker."""
        signer = self.desk.player_signer(request.player)
        terms = request.terms
        if problem := terms_problem(terms):
            raise refused(f"{problem}; nothing was published")
        try:
            with self.desk.client() as client:
                chain = self.desk.chain(client)
                floor, balance = chain.challenge_floor(), chain.balance(signer.public_key)
        except CommandError as error:
            raise unavailable(error) from None
        if terms.challenge < floor:
            raise refused(f"this chain's challenges last at least {duration(floor)} "
                          f"(chips.min_challenge_seconds), not {duration(terms.challenge)}: an accept could not be "
                          "opened; nothing was published")  # fmt: skip
        if balance < terms.deposit:
            raise refused(f"{cannot_cover(balance, terms.deposit)}: an accept could not be joined; nothing was "
                          "published")  # fmt: skip
        session = self.feed.session
        if session is None:
            raise ApiError(503, UNAVAILABLE, "Broker Unavailable", f"no broker: {self.feed.message}")
        with self._lock:
            if len(self.posted) >= MAX_OFFERS:
                raise ApiError(429, 50, "Too Many Offers", f"{MAX_OFFERS} offers are open already: withdraw one")
        signed = make_offer(signer, terms, int(self.clock()) + request.seconds)
        posted = Posted(request.player, signer, Post(session, signed), Published(signed, 1))
        with self._lock:
            self.posted[signed.offer.id] = posted
        try:
            posted.post.publish()
        except BrokerError as error:
            with self._lock:
                self.posted.pop(signed.offer.id, None)
            raise ApiError(502, UNAVAILABLE, "Broker Unavailable", f"{error.message}; nothing was published") from None
        return {"offer": signed.offer.id, "expires": signed.offer.expires,
                "message": f"Your offer is on the board for {duration(request.seconds)}: the first accept is "
                           "joined and played here."}  # fmt: skip

    def withdraw(self, player: str, offer_id: str) -> Json:
        """Withdraw the page's offer ``offer_id``: cleared from the board; a 409 unless it is theirs and open."""
        signer = self.desk.player_signer(player)
        with self._lock:
            posted = self.posted.get(offer_id)
            if posted is None or posted.signer.public_key != signer.public_key:
                raise refused("you have no open offer with this id here: it was joined, expired or withdrawn")
            del self.posted[offer_id]
        self._clear(posted)
        return {"offer": offer_id, "message": "Your offer is withdrawn: nobody sees it from now on."}

    def open(self) -> bool:
        """Whether any offer is open: the chain is read for accepts only then."""
        return bool(self.posted)

    def check(self) -> None:
        """Withdraw what expired; join each accept :func:`~chips_client.offer_desk.decide` allows, then play it."""
        now = self.clock()
        with self._lock:
            ended = [i for i, posted in self.posted.items() if posted.published.signed.offer.expires <= now]
            expired = [self.posted.pop(i) for i in ended]
            by_key: dict[str, list[Posted]] = {}
            for posted in self.posted.values():
                by_key.setdefault(posted.signer.public_key, []).append(posted)
        for posted in expired:
            self._clear(posted)
        if not by_key:
            return
        try:
            with self.desk.client() as client:
                chain = self.desk.chain(client)
                channels = chain.channels()
                balances = {key: chain.balance(key) for key in by_key}
        except CommandError as error:
            if not self._chain_said:  # once, until the chain answers again: this runs every second
                LOG.warning("xo web: cannot read the chain for accepts of your offers: %s", error.message)
            self._chain_said = True
            return
        self._chain_said = False
        for key, mine in by_key.items():
            owners = {id(p.published): p for p in mine}
            for decision in decide([p.published for p in mine], channels, balances[key], now):
                if decision.join:
                    self._join(owners[id(decision.offer)], decision.channel)
                elif decision.channel.id not in self._told:
                    self._told.add(decision.channel.id)
                    fixed = decision.channel.fixed
                    accepter = known_as(fixed.participants[0], key, self.desk.names())
                    line = f"{accepter} accepted your offer, but it is not joined: {decision.reason}"
                    self.matches.say(key, decision.channel.id, fixed.app, line)

    def _join(self, posted: Posted, channel: Any) -> None:
        offer = posted.published.signed.offer
        fixed, ident = channel.fixed, channel.id
        name = channel_name(offer.id, accept_number(offer, fixed, posted.published.count) or 1)  # the accepter's name
        with self.desk.store(posted.signer.public_key) as store:
            store.remember_channel(ident, ChannelTerms(name, fixed, rounds_of(fixed)))
        try:
            join = tx.join(posted.signer, fixed, channel.held)
            self.desk.submit(posted.signer, join, f"the join of {quoted(name, None)}")
        except ApiError as error:
            LOG.warning("xo web: joining an accept of your offer failed: %s", error.message)
            return
        posted.published.joined.add(ident)
        if posted.published.full:
            with self._lock:
                self.posted.pop(offer.id, None)
            self._clear(posted)
        accepter = known_as(fixed.participants[0], posted.signer.public_key, self.desk.names())
        self.matches.say(posted.signer.public_key, ident, fixed.app,
                         f"{accepter} accepted your offer: channel {quoted(name, None)} is funded; the match starts",
                         offer=offer.id)  # fmt: skip
        try:
            record = self.desk.record(ident, posted.signer.public_key)
            self.matches.start(posted.player, posted.signer, record, ChannelTerms(name, fixed, rounds_of(fixed)))
        except ApiError as error:
            self.matches.say(posted.signer.public_key, ident, fixed.app, f"the match could not start: {error.message}")

    def republish(self) -> None:
        """Publish every open offer again (after a reconnection: the broker may have forgotten them)."""
        for posted in list(self.posted.values()):
            posted.post.publish()

    def _clear(self, posted: Posted) -> None:
        try:
            posted.post.withdraw()
        except BrokerError as error:
            LOG.warning("xo web: withdrawing an offer failed: %s", error.message)

    def block_committed(self, _changes: object = None) -> None:
        """A block committed (a listener of the server's follower, on its loop): it may hold an accept, so the chain
        is read now rather than at the next poll. Blocks that come during a read make one read after it."""
        self._block.set()

    def next_read(self) -> float:
        """Seconds until the chain must be read without a new block: the next poll, or the soonest expiry of an open
        offer if that comes first (it is withdrawn then, not up to a poll later)."""
        with self._lock:
            expiries = [posted.published.signed.offer.expires for posted in self.posted.values()]
        return max(0.0, min([POLL_SECONDS, *(expires - self.clock() for expires in expiries)]))

    async def run(self) -> None:
        """Read the chain for accepts while an offer is open, at each new block, every :data:`POLL_SECONDS` and as an
        offer expires, until cancelled."""
        while True:
            with contextlib.suppress(TimeoutError):  # not wait_for: before 3.12 it can swallow the server's cancel
                async with asyncio.timeout(self.next_read()):
                    await self._block.wait()
            self._block.clear()
            if self.open():
                await asyncio.to_thread(self.check)

    async def close(self) -> None:
        """Withdraw every open offer: the server stops, and nobody would join an accept."""
        with self._lock:
            left, self.posted = list(self.posted.values()), {}
        for posted in left:
            await asyncio.to_thread(self._clear, posted)
