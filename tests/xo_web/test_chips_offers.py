"""Open offers through the local server, against xo-devnet and its broker: the live list, Accept, the Offer form.

The list holds what verifies and is open, and drops an offer as it expires, each change
pushed as an ``offers`` event; an offer signed by another key or stretched past its expiry
never shows. Accept opens the channel the offer's rules name, on its terms to the chip,
and cancels it (deposit back) when the offerer never joins. An offer made from the page is
retained on the broker (a fresh reader finds it), withdrawn on request and when the server
stops, and its accept is joined by the server and played on the page.
"""

from __future__ import annotations

import queue
import secrets
import time
from collections.abc import Callable, Iterator

import pytest

from chips_client import transactions as tx
from chips_client.chain import RestChain
from chips_client.offer_board import Post, read_board
from chips_client.offers import SignedOffer, Terms, channel_fixed, channel_name, encode_offer, make_offer
from chips_tp.channel import channel_id
from client_core.broker import BrokerAddress, BrokerSession
from client_core.keys import load_signer
from client_core.rest import RestClient
from tests.xo_web.local_server import EventReader, LocalServer
from xo_core.signing import Signer
from xo_core.text import short_key
from xo_devnet.spawn import DevnetProcess
from xo_web import offer_accepts, offer_posts

SECONDS = 60.0
CAROL = Signer.generate()  # a stranger: no key in the server's directory, so nobody joins her accepts
MALLORY = Signer.generate()


@pytest.fixture(scope="module")
def offers_server(devnet: DevnetProcess, broker: BrokerAddress) -> Iterator[LocalServer]:
    with LocalServer(devnet.rest_url, devnet.key_dir, broker=broker) as running:
        yield running


@pytest.fixture
def poster(broker: BrokerAddress) -> Iterator[BrokerSession]:
    """A session of the test's own on the broker, publishing offers as another player's program would."""
    session = BrokerSession(broker, f"test-poster-{secrets.token_hex(8)}", lambda *_: None, persistent=False)
    session.connect(SECONDS)
    yield session
    session.close()


def board_ids(broker: BrokerAddress) -> set[str]:
    """The ids of the offers a fresh reader finds retained on the broker."""

    def open_session(receive: Callable[[str, bytes], None]) -> BrokerSession:
        return BrokerSession(broker, f"test-reader-{secrets.token_hex(8)}", receive, persistent=False)

    return {signed.offer.id for signed in read_board(open_session, None).offers}


def key_of(devnet: DevnetProcess, name: str) -> str:
    return (devnet.key_dir / f"{name}.pub").read_text().strip()


def offers_event(events: EventReader, test: Callable[[dict], bool]) -> dict:
    ends = time.monotonic() + SECONDS
    while time.monotonic() < ends:
        _, data = events.next("offers")
        if test(data):
            return data
    raise AssertionError("no such offers event")


def chips_event(events: EventReader, player: str, test: Callable[[dict], bool]) -> dict:
    ends = time.monotonic() + SECONDS
    while time.monotonic() < ends:
        _, data = events.next("chips")
        if data["player"] == player and test(data):
            return data
    raise AssertionError(f"no such chips event for {player[:8]}")


def listed(offers_server: LocalServer, offer_id: str) -> dict:
    """The offer as ``GET /api/chips/offers`` lists it, once the server has it (bounded wait)."""
    ends = time.monotonic() + SECONDS
    while time.monotonic() < ends:
        found = [o for o in offers_server.get_json("/api/chips/offers")["offers"] if o["id"] == offer_id]
        if found:
            return found[0]
        time.sleep(0.2)
    raise AssertionError(f"offer {offer_id[:8]} never listed")


def offered(server: LocalServer, player: str, seconds: int = 300, **terms: object) -> str:
    """The id of an offer made from the page, once the server's session on the broker is up (503 until then)."""
    ends = time.monotonic() + SECONDS
    while (posted := server.post_chips("offer", player=player, seconds=seconds, **terms)).status == 503:
        assert time.monotonic() < ends, posted.body
        time.sleep(0.2)
    assert posted.status == 200, posted.body
    return posted.json()["offer"]


def asked(event: dict, played: int) -> bool:
    """Whether ``event`` asks its player for a move on a board with ``played`` marks (not an older question)."""
    wanted = event["wanted"]
    return wanted is not None and wanted["board"].count("-") == 9 - played


def fund(devnet: DevnetProcess, key: str, amount: int) -> None:
    """``amount`` of alice's chips given to ``key``, committed."""
    alice = load_signer(devnet.key_dir, "alice", "test")
    with RestClient(devnet.rest_url) as client:
        RestChain(client, alice).submit(tx.transfer(alice, key, amount), "the transfer")


def balance(server: LocalServer, player: str) -> int:
    return server.get_json(f"/api/chips?player={player}")["balance"]


def test_the_list_shows_open_verified_offers_live_and_never_a_forged_or_expired_one(offers_server, poster):
    now = int(time.time())
    terms = Terms("rps", 5, 20, 3, 60)
    good = make_offer(CAROL, terms, now + 600)
    brief = make_offer(CAROL, terms, now + 4)
    forged = SignedOffer(make_offer(CAROL, terms, now + 600).offer, make_offer(MALLORY, terms, now + 600).signature)
    stretched = SignedOffer(brief.offer._replace(expires=now + 900), brief.signature)
    replayed_elsewhere = f"xo/chips/offers/rps/{MALLORY.public_key}/{good.offer.id}"
    with EventReader(offers_server) as events:
        # the bad ones first, so they have been judged once the good ones show
        poster.publish(replayed_elsewhere, encode_offer(good), SECONDS, retain=True)
        posts = [Post(poster, signed) for signed in (forged, stretched, good, brief)]
        for post in posts:
            post.publish()
        shown = offers_event(events, lambda d: {good.offer.id, brief.offer.id} <= {o["id"] for o in d["offers"]})
        ids = [o["id"] for o in shown["offers"]]
        assert forged.offer.id not in ids and stretched.offer.id not in ids
        assert ids.count(good.offer.id) == 1
        assert shown["refused"] >= 3  # the forged, the stretched, the copy on another topic
        [view] = [o for o in shown["offers"] if o["id"] == good.offer.id]
        assert view["offerer"] == {"public_key": CAROL.public_key, "name": None}
        assert (view["game"], view["stake"], view["deposit"], view["rounds"], view["challenge_seconds"]) == (
            "rps", 5, 20, 3, 60,
        )  # fmt: skip
        assert view["expires"] == now + 600 and view["rating"] is None  # carol never played
        # the brief one goes when it expires, pushed to the page without a request
        gone = offers_event(events, lambda d: brief.offer.id not in {o["id"] for o in d["offers"]})
        assert time.time() >= now + 4
        assert good.offer.id in {o["id"] for o in gone["offers"]}
        posts[2].withdraw()  # good's
        offers_event(events, lambda d: good.offer.id not in {o["id"] for o in d["offers"]})
    poster.publish(replayed_elsewhere, b"", SECONDS, retain=True)


def test_accept_opens_the_offers_exact_channel_and_cancels_it_when_the_offerer_never_joins(
    offers_server, poster, devnet, monkeypatch
):
    monkeypatch.setattr(offer_accepts, "JOIN_SECONDS", 3.0)
    signed = make_offer(CAROL, Terms("xo", 7, 30, 2, 45), int(time.time()) + 600)
    post = Post(poster, signed)
    post.publish()
    offer_id = signed.offer.id
    listed(offers_server, offer_id)
    bob = key_of(devnet, "bob")
    before = balance(offers_server, "bob")
    # carol holds no chips: her join could never come, so nothing is opened (as chips accept refuses)
    broke = offers_server.post_chips("accept", player="bob", offer=offer_id)
    assert broke.status == 409, broke.body
    assert broke.json()["error"]["message"] == (
        f"{short_key(CAROL.public_key)} has 0 free chips, too few to cover the deposit of 30 now: nothing was opened"
    )
    assert balance(offers_server, "bob") == before
    fund(devnet, CAROL.public_key, 30)
    with EventReader(offers_server) as events:
        accepted = offers_server.post_chips("accept", player="bob", offer=offer_id)
        assert accepted.status == 202, accepted.body
        expected = channel_fixed(signed.offer, bob, 1)
        assert accepted.json()["channel"] == channel_id(expected).hex()
        assert accepted.json()["name"] == channel_name(offer_id, 1)
        view = offers_server.get_json("/api/chips?player=bob")
        [channel] = [c for c in view["channels"] if c["id"] == channel_id(expected).hex()]
        assert (channel["game"], channel["stake"], channel["deposits"], channel["rounds"]) == ("xo", 7, [30, 30], 2)
        assert channel["challenge_seconds"] == 45 and channel["opponent"]["public_key"] == CAROL.public_key
        assert channel["shown"] == channel_name(offer_id, 1) and channel["waiting_for_opponent"] is True
        assert view["balance"] == before - 30
        said = chips_event(events, bob, lambda e: e["line"] and "is cancelled" in e["line"])
    assert said["line"] == (
        f"the offerer did not join within 3 s: channel '{channel_name(offer_id, 1)}' is cancelled and your deposit "
        "of 30 chips is back"
    )
    assert balance(offers_server, "bob") == before
    # a second accept is the offer's second channel: the first one's name is taken on the chain. Nothing is read
    # while it waits, so its cancel need not wait as long
    monkeypatch.setattr(offer_accepts, "JOIN_SECONDS", 0.5)
    with EventReader(offers_server) as events:
        again = offers_server.post_chips("accept", player="bob", offer=offer_id)
        assert again.status == 202 and again.json()["name"] == channel_name(offer_id, 2), again.body
        chips_event(events, bob, lambda e: e["channel"] == again.json()["channel"] and "is cancelled" in e["line"])
    post.withdraw()
    assert balance(offers_server, "bob") == before


def test_bad_offer_requests_are_refused_in_words(offers_server):
    for path, fields, status, said in (
        ("accept", {"offer": "ab" * 31}, 400, '"offer" must be an offer\'s id: 64 lowercase hex digits'),
        ("accept", {"offer": "AB" * 32}, 400, '"offer" must be an offer\'s id'),
        ("accept", {"offer": "ab" * 32}, 409, "this offer is no longer open"),
        ("withdraw", {"offer": "ab" * 32}, 409, "you have no open offer with this id here"),
        ("offer", {"game": "chess", "stake": 1, "deposit": 1, "rounds": 1, "challenge": 60, "seconds": 60}, 400,
         '"game" must be one of xo, rps'),
        ("offer", {"game": "xo", "stake": 1, "deposit": 1, "rounds": 1, "challenge": 60, "seconds": 5}, 400,
         '"seconds" must be a whole number from 10 to 86400'),
        ("offer", {"game": "xo", "stake": 1, "deposit": 1, "rounds": 1, "challenge": 60}, 400, '"seconds" must be'),
        ("offer", {"game": "xo", "stake": 10, "deposit": 5, "rounds": 1, "challenge": 60, "seconds": 60}, 409,
         "the deposit must cover the stake of 10 chips, not 5; nothing was published"),
        ("offer", {"game": "xo", "stake": 1, "deposit": 10**12, "rounds": 1, "challenge": 60, "seconds": 60}, 409,
         "cannot cover a deposit of 1000000000000 (on xo-devnet 'chips faucet' gives a key chips"),
    ):  # fmt: skip
        answer = offers_server.post_chips(path, player="alice", **fields)
        assert answer.status == status and said in answer.json()["error"]["message"], (path, fields, answer.body)
    nobody = offers_server.post_chips("accept", player="nobody", offer="ab" * 32)
    assert nobody.status == 400 and "no private key named 'nobody'" in nobody.json()["error"]["message"]


def test_an_offer_from_the_page_is_retained_withdrawn_on_request_and_its_accept_joined_and_played(
    offers_server, broker, devnet
):
    terms = {"game": "xo", "stake": 10, "deposit": 50, "rounds": 1, "challenge": 60}
    kept_id, dropped_id = offered(offers_server, "alice", **terms), offered(offers_server, "alice", **terms)
    assert {kept_id, dropped_id} <= board_ids(broker)  # retained: a reader connecting now finds both

    assert offers_server.post_chips("withdraw", player="bob", offer=dropped_id).status == 409  # not bob's
    withdrawn = offers_server.post_chips("withdraw", player="alice", offer=dropped_id)
    assert withdrawn.status == 200, withdrawn.body
    on_board = board_ids(broker)
    assert kept_id in on_board and dropped_id not in on_board
    assert offers_server.post_chips("withdraw", player="alice", offer=dropped_id).status == 409

    mine = offers_server.post_chips("accept", player="alice", offer=kept_id)
    assert mine.status == 409 and "your own offer" in mine.json()["error"]["message"]
    alice, bob = key_of(devnet, "alice"), key_of(devnet, "bob")
    assert listed(offers_server, kept_id)["offerer"] == {"public_key": alice, "name": "alice"}
    before = {name: balance(offers_server, name) for name in ("alice", "bob")}
    with EventReader(offers_server) as events:
        accepted = offers_server.post_chips("accept", player="bob", offer=kept_id)
        assert accepted.status == 202, accepted.body
        ident = accepted.json()["channel"]
        joined = chips_event(events, alice, lambda e: e.get("offer") == kept_id)
        assert joined["channel"] == ident and joined["line"].startswith("bob accepted your offer")
        # the accepter opened, so bob is X and moves first; each page's moves go to the server's match for it
        for played, (mover, space) in enumerate((("bob", 1), ("alice", 4), ("bob", 2), ("alice", 5), ("bob", 3))):
            key = bob if mover == "bob" else alice
            chips_event(events, key, lambda e, n=played: e["channel"] == ident and asked(e, n))
            moved = offers_server.post_chips("move", player=mover, channel=ident, space=space)
            assert moved.status == 202, moved.body
        ended = chips_event(events, bob, lambda e: e["channel"] == ident and not e["playing"] and e["state"])
        assert ended["line"] in ("the channel is concluded", "the channel is closed already"), ended
    assert kept_id not in board_ids(broker)  # joined once: its count of one is spent, so it was withdrawn
    assert {name: balance(offers_server, name) for name in ("alice", "bob")} == {
        "alice": before["alice"] - 10, "bob": before["bob"] + 10,
    }  # fmt: skip
    # the match is rated: alice's next offer carries her rating at staked matches, as chips offers shows it
    rated_id = offered(offers_server, "alice", **terms)
    ends = time.monotonic() + SECONDS
    while (rating := listed(offers_server, rated_id)["rating"]) is None and time.monotonic() < ends:
        time.sleep(0.2)
    assert rating is not None and rating["games"] >= 1 and rating["losses"] >= 1, rating
    assert offers_server.post_chips("withdraw", player="alice", offer=rated_id).status == 200


def test_the_offers_of_a_server_that_stops_are_withdrawn(devnet, broker):
    with LocalServer(devnet.rest_url, devnet.key_dir, broker=broker) as server:
        offer_id = offered(server, "bob", game="rps", stake=1, deposit=5, rounds=1, challenge=60)
        assert offer_id in board_ids(broker)
    assert offer_id not in board_ids(broker)


def retained_on(broker: BrokerAddress, where: str) -> list[bytes]:
    """What the broker retains on the topic ``where``: what a new subscriber is handed at once."""
    arrived: queue.Queue[bytes] = queue.Queue()

    def receive(topic: str, payload: bytes) -> None:
        if topic == where:
            arrived.put(payload)

    session = BrokerSession(broker, f"test-raw-{secrets.token_hex(8)}", receive, persistent=False)
    session.connect(SECONDS)
    try:
        session.subscribe(where, SECONDS)
        try:
            return [arrived.get(timeout=1.0)]
        except queue.Empty:
            return []
    finally:
        session.close()


def test_a_page_offer_that_expires_is_cleared_from_the_broker(offers_server, broker, devnet, monkeypatch):
    monkeypatch.setattr(offer_posts, "MIN_OPEN_SECONDS", 1)
    offer_id = offered(offers_server, "bob", game="xo", stake=1, deposit=5, rounds=1, challenge=60, seconds=2)
    where = f"xo/chips/offers/xo/{key_of(devnet, 'bob')}/{offer_id}"
    assert len(retained_on(broker, where)) == 1
    ends = time.monotonic() + SECONDS
    while (retained := retained_on(broker, where)) and time.monotonic() < ends:  # cleared within a second of expiry
        time.sleep(0.5)
    assert retained == []
    assert offer_id not in {o["id"] for o in offers_server.get_json("/api/chips/offers")["offers"]}
    assert offers_server.post_chips("withdraw", player="bob", offer=offer_id).status == 409  # no longer open
