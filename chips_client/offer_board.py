"""Open offers on the broker: read the retained ones, post one (kept there while it is open), withdraw it.

Every offer is a retained message on a topic of its own (:mod:`chips_client.offers`), so
a player who connects at any time reads every open offer at once. What a reader is given
is checked like everything from a broker: an offer that does not verify, is expired,
malformed, on terms chips-tp would not open (:func:`chips_client.offers.terms_problem`, the
processor's own check) or retained on another topic than its own is counted and left out, never shown;
and what a broker delivers beyond the filter asked for (amqtt 0.12 alone does) is
dropped. A poster publishes again after the broker
comes back (a broker restarted without persistence forgets retained messages), puts the
offer back when anyone else clears, replaces or alters it (:class:`Post`), and clears
the topic when the offer is withdrawn.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Final, NamedTuple, Protocol

from chips_client.offers import ID_SHOWN, SignedOffer, decode_offer, encode_offer, subscription, topic
from chips_tp.channel import MIN_DURATION
from client_core.broker import BrokerError
from xo_core.canonical import Malformed

#: Reading the board ends this long after the last retained offer arrived (they come in a burst on subscribing).
QUIET_SECONDS: Final = 0.3
#: ... or after this long in all, however many keep arriving.
READ_SECONDS: Final = 3.0
TIMEOUT: Final = 10.0
#: An offer someone else took down is put back at once, then at most this often (seconds).
RESTORE_SECONDS: Final = 1.0
LOG = logging.getLogger(__name__)


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


def heard_by(posts: list[Post]) -> Callable[[str, bytes], None]:
    """A session's message handler that tells each of ``posts`` (filled once the session exists) what it delivers."""

    def heard(where: str, payload: bytes) -> None:
        for post in posts:
            post.heard(where, payload)

    return heard


class Post:
    """One offer kept on the broker while it is open: published retained, again after a reconnection, put back when
    anyone else takes it down, then cleared.

    Its poster follows the offer's own topic (:meth:`follow`, or a session subscribed to every offer) and hands
    what arrives to :meth:`heard`: while the offer is open, anything there but the offer itself (an empty
    retained message, another offer, altered bytes) was published by someone else, since only the poster
    clears it, and only on withdrawal. The offer is put back on a thread of its own, at most once every
    :data:`RESTORE_SECONDS` (a stranger clearing it in a loop gets one message back for each of theirs at most),
    and ``say`` is told once. A broker whose ACL lets each account write only its own offer topics refuses such
    a message in the first place (docs/messaging.md).
    """

    def __init__(self, session: Session, signed: SignedOffer, say: Callable[[str], None] | None = None) -> None:
        self.session, self.signed, self.say = session, signed, say
        self.topic = topic(signed.offer)
        self.payload = encode_offer(signed)
        self.open = False
        self.restored = 0
        """How many times the offer was put back after someone else took it down."""
        self._lock = threading.Lock()  # publish, withdraw and put back one at a time: a withdrawal stays withdrawn
        self._pending = threading.Lock()
        self._timer: threading.Timer | None = None
        self._last_restore = -RESTORE_SECONDS

    def publish(self) -> None:
        """Put the offer on the board (again: the broker may have forgotten it)."""
        with self._lock:
            self.session.publish(self.topic, self.payload, TIMEOUT, retain=True)
            self.open = True

    def withdraw(self) -> None:
        """Clear the offer from the board: nobody connecting from now on sees it."""
        with self._lock:
            if self.open:
                self.open = False
                self.session.publish(self.topic, b"", TIMEOUT, retain=True)

    def follow(self) -> None:
        """Subscribe to the offer's own topic: the session's handler must pass what arrives to :meth:`heard`."""
        self.session.subscribe(self.topic, TIMEOUT)

    def heard(self, where: str, payload: bytes) -> None:
        """A message the broker delivered (on its network thread: this never waits on the broker). Anything on the
        offer's topic but the offer, while it is open, is someone else's doing: the offer is put back shortly."""
        if where != self.topic or payload == self.payload or not self.open:
            return
        with self._pending:
            if self._timer is not None:
                return
            delay = max(0.0, self._last_restore + RESTORE_SECONDS - time.monotonic())
            self._timer = threading.Timer(delay, self._put_back)
            self._timer.daemon = True
            self._timer.start()

    def _put_back(self) -> None:
        with self._pending:
            self._timer = None
            self._last_restore = time.monotonic()
        with self._lock:
            if not self.open:
                return
            self.restored += 1  # before its echo comes back, which has the page's list told again
            try:
                self.session.publish(self.topic, self.payload, TIMEOUT, retain=True)
            except BrokerError as error:
                self.restored -= 1
                LOG.warning("putting back the offer %s failed: %s", self.signed.offer.id[:ID_SHOWN], error.message)
                return
        if self.restored == 1 and self.say is not None:
            self.say(f"another client took the offer {self.signed.offer.id[:ID_SHOWN]} off the board (cleared or "
                     "replaced it on the broker): it is back, and is put back each time (a broker that lets each "
                     "account publish only its own offers prevents it: docs/messaging.md)")  # fmt: skip
