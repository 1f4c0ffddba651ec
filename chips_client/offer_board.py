"""Open offers on the broker: read the retained ones, post one (kept there while it is open), withdraw it.

Every offer is a retained message on a topic of its own (:mod:`chips_client.offers`), so
a player who connects at any time reads every open offer at once. What a reader is given
is checked like everything from a broker: an offer that does not verify, is expired,
malformed, on terms chips-tp would not open (:func:`chips_client.offers.terms_problem`, the
processor's own check) or retained on another topic than its own is counted and left out, never shown;
and what a broker delivers beyond the filter asked for (amqtt 0.12 alone does) is
dropped. A poster publishes again after the broker
comes back (a broker restarted without persistence forgets retained messages) and clears
the topic when the offer is withdrawn.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from typing import Final, NamedTuple, Protocol

from chips_client.offers import SignedOffer, decode_offer, encode_offer, subscription, topic
from chips_tp.channel import MIN_DURATION
from xo_core.canonical import Malformed

#: Reading the board ends this long after the last retained offer arrived (they come in a burst on subscribing).
QUIET_SECONDS: Final = 0.3
#: ... or after this long in all, however many keep arriving.
READ_SECONDS: Final = 3.0
TIMEOUT: Final = 10.0


class Session(Protocol):
    """What the board needs of a broker session (:class:`client_core.broker.BrokerSession`)."""

    def connect(self, timeout: float) -> None: ...

    def subscribe(self, topic: str, timeout: float) -> None: ...

    def publish(self, topic: str, payload: bytes, timeout: float, *, retain: bool = False) -> None: ...

    def close(self) -> None: ...


class Board(NamedTuple):
    """The open offers read, oldest expiry first, and how many messages were refused (forged, expired, junk)."""

    offers: list[SignedOffer]
    refused: int


def read_board(open_session: Callable[[Callable[[str, bytes], None]], Session], game: str | None,
               clock: Callable[[], float] = time.time, floor: int = MIN_DURATION) -> Board:  # fmt: skip
    """Every open offer retained on the broker (of ``game`` only, when given), each verified and on terms chips-tp
    opens where challenges last at least ``floor`` seconds (the chain's ``chips.min_challenge_seconds``)."""
    arrived: queue.Queue[tuple[str, bytes]] = queue.Queue()
    session = open_session(lambda topic, payload: arrived.put((topic, payload)))
    session.connect(TIMEOUT)
    try:
        session.subscribe(subscription(game), TIMEOUT)
        payloads = _burst(arrived)
    finally:
        session.close()
    found: dict[str, SignedOffer] = {}
    refused = 0
    now = clock()
    for where, payload in payloads:
        if not payload:  # a withdrawn offer's topic, cleared
            continue
        try:
            signed = decode_offer(payload, now, floor)
        except Malformed:
            refused += 1
            continue
        if where != topic(signed.offer):  # a copy elsewhere: an offer counts only on its own topic, which it names
            refused += 1
            continue
        if game is None or signed.offer.terms.game == game:  # a broker may deliver more than the filter asked for
            found[signed.offer.id] = signed
    return Board(sorted(found.values(), key=lambda s: (s.offer.expires, s.offer.id)), refused)


def _burst(arrived: queue.Queue[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """What arrives until the broker has been quiet for :data:`QUIET_SECONDS` (at most :data:`READ_SECONDS`)."""
    ends = time.monotonic() + READ_SECONDS
    got = []
    while (left := ends - time.monotonic()) > 0:
        try:
            got.append(arrived.get(timeout=min(QUIET_SECONDS, left)))
        except queue.Empty:
            break
    return got


def find(board: Board, given: str) -> SignedOffer:
    """The offer whose id starts with ``given``; ValueError saying why when none or several do."""
    wanted = given.lower()
    matching = [s for s in board.offers if s.offer.id.startswith(wanted)] if wanted else []
    if len(matching) == 1:
        return matching[0]
    if not matching:
        raise ValueError(f"no open offer has an id starting {given!r}: 'chips offers' lists them")
    raise ValueError(f"{len(matching)} open offers have an id starting {given!r}: give more of it")


class Post:
    """One offer kept on the broker while it is open: published retained, again after a reconnection, then cleared."""

    def __init__(self, session: Session, signed: SignedOffer) -> None:
        self.session, self.signed = session, signed
        self.topic = topic(signed.offer)
        self.open = False

    def publish(self) -> None:
        """Put the offer on the board (again: the broker may have forgotten it)."""
        self.session.publish(self.topic, encode_offer(self.signed), TIMEOUT, retain=True)
        self.open = True

    def withdraw(self) -> None:
        """Clear the offer from the board: nobody connecting from now on sees it."""
        if self.open:
            self.open = False
            self.session.publish(self.topic, b"", TIMEOUT, retain=True)
