"""The board of open offers: what a reader is shown (verified, open, once each) and how an offer is posted."""

from __future__ import annotations

import pytest

from chips_client import offers
from chips_client.offer_board import Post, find, read_board
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
