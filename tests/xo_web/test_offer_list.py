"""The page's list of open offers, without a broker: what is kept, what a withdrawal or expiry removes, what not."""

from __future__ import annotations

from chips_client.offers import SignedOffer, Terms, encode_offer, make_offer, topic
from client_core.keys import NO_NAMES, KeyNames
from xo_core.signing import Signer
from xo_web.offer_list import OfferList

NOW = 1_800_000_000.0
BOB = Signer.from_hex("22" * 32)
MALLORY = Signer.from_hex("33" * 32)
TERMS = Terms("xo", 10, 50, 3, 600)


def test_offers_are_kept_on_their_own_topic_until_withdrawn_or_expired_soonest_first() -> None:
    later, sooner = make_offer(BOB, TERMS, int(NOW) + 900), make_offer(BOB, TERMS, int(NOW) + 60)
    board = OfferList()
    assert board.received(topic(later.offer), encode_offer(later), NOW)
    assert board.received(topic(sooner.offer), encode_offer(sooner), NOW)
    assert not board.received(topic(sooner.offer), encode_offer(sooner), NOW)  # the same again: no change
    assert board.open_offers(NOW) == [sooner, later] and board.next_expiry() == NOW + 60
    assert board.open_offers(NOW + 60) == [later]  # expired is not open, even before the prune
    assert board.prune(NOW + 60) and not board.prune(NOW + 60)
    assert board.received(topic(later.offer), b"", NOW)  # the offerer's withdrawal clears its topic
    assert board.open_offers(NOW) == [] and board.next_expiry() is None and board.refused == 0


def test_forged_stretched_junk_and_misplaced_offers_are_counted_never_kept() -> None:
    good = make_offer(BOB, TERMS, int(NOW) + 900)
    forged = SignedOffer(good.offer, make_offer(MALLORY, TERMS, int(NOW) + 900).signature)
    stretched = SignedOffer(good.offer._replace(expires=int(NOW) + 1000), good.signature)
    board = OfferList()
    for where, payload in (
        (topic(good.offer), encode_offer(forged)),
        (topic(stretched.offer), encode_offer(stretched)),
        (topic(good.offer), b"\x00junk"),
        (f"xo/chips/offers/xo/{MALLORY.public_key}/{good.offer.id}", encode_offer(good)),
        (topic(good.offer), encode_offer(make_offer(BOB, TERMS, int(NOW) - 1))),
    ):
        assert not board.received(where, payload, NOW)
    assert board.refused == 5 and board.open_offers(NOW) == []
    assert board.received(topic(good.offer), encode_offer(good), NOW)
    assert board.received(topic(good.offer), b"junk", NOW)  # a stranger's junk over it removes it: it is not open


def test_the_view_names_the_offerer_and_gives_their_rating_and_the_terms() -> None:
    signed = make_offer(BOB, TERMS, int(NOW) + 900)
    board = OfferList()
    board.received(topic(signed.offer), encode_offer(signed), NOW)
    names = KeyNames({BOB.public_key: "bob\u202e"})
    [view] = board.view(NOW, names, lambda key: {"rank": 1} if key == BOB.public_key else None)
    assert view["offerer"] == {"public_key": BOB.public_key, "name": "bob\\u202e"}  # shown, never raw
    assert view["rating"] == {"rank": 1} and view["id"] == signed.offer.id and view["short_id"] == signed.offer.id[:16]
    assert (view["game"], view["stake"], view["deposit"], view["rounds"], view["challenge_seconds"]) == (
        "xo",
        10,
        50,
        3,
        600,
    )
    assert view["expires"] == int(NOW) + 900
    assert board.view(NOW, NO_NAMES, lambda _key: None)[0]["offerer"]["name"] is None
