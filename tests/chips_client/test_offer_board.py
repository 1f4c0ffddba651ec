"""The board of open offers: what a reader is shown (verified, open, once each) and how an offer is posted."""

from __future__ import annotations

import threading
import time

import pytest

from chips_client import offers
from chips_client.offer_board import RESTORE_SECONDS, Post, find, read_board
from chips_client.offers import SignedOffer, Terms
from xo_core.signing import Signer

NOW = 1_800_000_000.0
BOB = Signer.from_hex("22" * 32)
MALLORY = Signer.from_hex("33" * 32)


class RetainedBroker:
    """A broker session holding retained messages by topic, handed to a subscriber at once, as MQTT does."""

    def __init__(self, retained: dict[str, bytes]) -> None:
        self.retained, self.published, self.closed = retained, [], False
        self.receive = None

    def __call__(self, receive):  # open_session
        self.receive = receive
        return self

    def connect(self, timeout: float) -> None:
        pass

    def subscribe(self, topic: str, timeout: float) -> None:
        prefix = topic.removesuffix("#").replace("+/", "")
        for name, payload in self.retained.items():
            if name.startswith("xo/chips/offers/") and (prefix == "xo/chips/offers/" or name.startswith(prefix)):
                self.receive(name, payload)

    def publish(self, topic: str, payload: bytes, timeout: float, *, retain: bool = False) -> None:
        self.published.append((topic, payload, retain))
        if retain:
            self.retained[topic] = payload

    def close(self) -> None:
        self.closed = True


def offer(game: str = "xo", expires: float = NOW + 600, signer: Signer = BOB) -> SignedOffer:
    return offers.make_offer(signer, Terms(game, 10, 50, 3, 600), int(expires))


def test_a_reader_sees_every_open_offer_once_soonest_to_expire_first_and_counts_the_rest() -> None:
    later, sooner = offer(expires=NOW + 900), offer(expires=NOW + 60)
    expired = offer(expires=NOW + 1)
    forged = SignedOffer(offer().offer, offer(signer=MALLORY).signature)
    broker = RetainedBroker({})
    for signed in (later, sooner, expired, forged):
        Post(broker, signed).publish()
    broker.retained["xo/chips/offers/xo/junk"] = b"\x00junk"
    broker.retained["xo/chips/offers/xo/withdrawn"] = b""
    board = read_board(broker, None, clock=lambda: NOW + 10)
    assert board.offers == [sooner, later]
    assert board.refused == 3  # expired, forged, junk; a cleared topic is no offer at all
    assert broker.closed


def test_a_copy_of_an_offer_on_another_topic_is_refused_and_a_broker_delivering_too_much_is_filtered() -> None:
    xo, rps = offer("xo"), offer("rps")
    broker = RetainedBroker({})
    Post(broker, xo).publish()
    broker.retained["xo/chips/offers/xo/elsewhere/1"] = offers.encode_offer(xo)
    broker.retained[offers.topic(rps.offer)] = offers.encode_offer(rps)
    broker.subscribe = lambda _topic, _timeout: [broker.receive(t, p) for t, p in broker.retained.items()]  # all
    board = read_board(broker, "xo", clock=lambda: NOW)
    assert board.offers == [xo]
    assert board.refused == 1


def test_a_reader_of_one_game_reads_only_its_topic() -> None:
    xo, rps = offer("xo"), offer("rps")
    broker = RetainedBroker({})
    Post(broker, xo).publish()
    Post(broker, rps).publish()
    assert read_board(broker, "rps", clock=lambda: NOW).offers == [rps]


def test_an_offer_is_found_by_a_unique_prefix_of_its_id() -> None:
    first, second = offer(), offer()
    broker = RetainedBroker({})
    for signed in (first, second):
        Post(broker, signed).publish()
    board = read_board(broker, None, clock=lambda: NOW)
    assert find(board, first.offer.id[:12].upper()) == first
    with pytest.raises(ValueError, match="no open offer has an id starting 'ffff'"):
        find(board, "ffff" if not first.offer.id.startswith("ffff") else "0000")
    common = next(n for n in range(65) if first.offer.id[:n] != second.offer.id[:n]) - 1
    if common > 0:
        with pytest.raises(ValueError, match="2 open offers"):
            find(board, first.offer.id[:common])


def test_a_post_is_retained_and_withdrawn_by_clearing_its_topic_once() -> None:
    signed = offer()
    broker = RetainedBroker({})
    post = Post(broker, signed)
    post.publish()
    post.withdraw()
    post.withdraw()
    topic = offers.topic(signed.offer)
    assert broker.published == [(topic, offers.encode_offer(signed), True), (topic, b"", True)]
    assert read_board(broker, None, clock=lambda: NOW).offers == []


class Heard:
    """A broker that hands every retained publish to its subscribers at once, as MQTT does (the poster included)."""

    def __init__(self) -> None:
        self.broker = RetainedBroker({})
        self.posts: list[Post] = []
        self.published = threading.Condition()

    def publish(self, topic: str, payload: bytes, timeout: float, *, retain: bool = False) -> None:
        with self.published:
            self.broker.publish(topic, payload, timeout, retain=retain)
            self.published.notify_all()
        for post in self.posts:
            post.heard(topic, payload)

    def subscribe(self, topic: str, timeout: float) -> None:
        pass

    def retained(self, topic: str, within: float) -> bytes | None:
        """What the topic retains once the poster has had ``within`` seconds to put its offer back."""
        with self.published:
            self.published.wait_for(lambda: self.broker.retained.get(topic) == self.posts[0].payload, within)
            return self.broker.retained.get(topic)


def test_an_offer_someone_else_clears_replaces_or_alters_is_put_back_and_said_once() -> None:
    signed, said = offer(), []
    broker = Heard()
    post = Post(broker, signed, said.append)  # type: ignore[arg-type]
    broker.posts.append(post)
    post.follow()
    post.publish()
    other = offer(signer=MALLORY)
    for stranger in (b"", offers.encode_offer(other), post.payload[:-1] + b"\x00"):
        broker.publish(post.topic, stranger, 1.0, retain=True)  # cleared, replaced by another offer, altered
        assert broker.retained(post.topic, within=RESTORE_SECONDS + 2) == post.payload
    assert post.restored == 3
    assert len(said) == 1 and f"took the offer {signed.offer.id[:16]} off the board" in said[0]
    post.withdraw()
    time.sleep(0.05)
    assert broker.broker.retained[post.topic] == b"", "the offerer's own withdrawal is never undone"


def test_a_flood_of_clears_is_answered_at_most_once_a_second() -> None:
    broker = Heard()
    post = Post(broker, offer())  # type: ignore[arg-type]
    broker.posts.append(post)
    post.publish()
    started = time.monotonic()
    while time.monotonic() - started < 1.5:
        broker.publish(post.topic, b"", 1.0, retain=True)
        time.sleep(0.01)
    assert broker.retained(post.topic, within=RESTORE_SECONDS + 2) == post.payload
    assert 1 <= post.restored <= 3, post.restored


def test_a_message_on_another_topic_or_the_offer_itself_changes_nothing() -> None:
    broker = Heard()
    post = Post(broker, offer())  # type: ignore[arg-type]
    broker.posts.append(post)
    post.publish()
    post.heard(offers.topic(offer().offer), b"")
    post.heard(post.topic, post.payload)
    time.sleep(0.1)
    assert post.restored == 0 and len(broker.broker.published) == 1
