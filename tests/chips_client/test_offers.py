"""Open offers as signed messages: what verifies, what is refused, and which channels are an offer's accepts."""

from __future__ import annotations

import pytest

from chips_client import offers
from chips_client.channels import nonce_of
from chips_client.offers import SignedOffer, Terms
from chips_tp.channel import Fixed
from chips_tp.hashes import sign, state_message
from xo_core import canonical
from xo_core.canonical import Malformed
from xo_core.signing import Signer

NOW = 1_800_000_000
TERMS = Terms("xo", 10, 50, 3, 600)
BOB = Signer.from_hex("22" * 32)
ALICE = Signer.from_hex("11" * 32)
MALLORY = Signer.from_hex("33" * 32)


def published(terms: Terms = TERMS, expires: int = NOW + 300, signer: Signer = BOB) -> SignedOffer:
    return offers.make_offer(signer, terms, expires)


def test_an_offer_round_trips_and_its_id_is_the_hash_of_what_was_signed() -> None:
    signed = published()
    read = offers.decode_offer(offers.encode_offer(signed), NOW)
    assert read == signed
    assert read.offer.offerer == BOB.public_key
    assert read.offer.terms == TERMS
    assert len(read.offer.id) == 64


def test_two_offers_of_the_same_terms_have_different_ids() -> None:
    assert published().offer.id != published().offer.id


def test_an_offer_signed_by_another_key_is_refused() -> None:
    genuine = published()
    forged = SignedOffer(genuine.offer, sign(MALLORY, offers.offer_message(genuine.offer.body)))
    with pytest.raises(Malformed, match="not signed by its offerer"):
        offers.decode_offer(offers.encode_offer(forged), NOW)


def test_an_offer_whose_expiry_was_stretched_is_refused() -> None:
    genuine = published(expires=NOW + 60)
    stretched = SignedOffer(genuine.offer._replace(expires=NOW + 6000), genuine.signature)
    with pytest.raises(Malformed, match="not signed by its offerer"):
        offers.decode_offer(offers.encode_offer(stretched), NOW)


def test_a_state_signature_never_passes_for_an_offer() -> None:
    genuine = published()
    other_purpose = SignedOffer(genuine.offer, sign(BOB, state_message(genuine.offer.body)))
    with pytest.raises(Malformed, match="not signed by its offerer"):
        offers.decode_offer(offers.encode_offer(other_purpose), NOW)


def test_an_expired_offer_is_refused_and_one_open_too_long_too() -> None:
    with pytest.raises(Malformed, match="expired"):
        offers.decode_offer(offers.encode_offer(published(expires=NOW)), NOW)
    with pytest.raises(Malformed, match="at most 86400 s"):
        offers.decode_offer(offers.encode_offer(published(expires=NOW + 2 * 86400)), NOW)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\xff" * 2000, "over the 1024"),
        (canonical.encode({"offer": "text", "signature": b"x" * 64}), "'offer' must be a byte string"),
        (canonical.encode({"offer": b"", "signature": b"short"}), "the signature must be 64 bytes"),
        (canonical.encode([1, 2]), "must be a map"),
        (b"\xa0", "an offer has no fields"),
    ],
)
def test_junk_is_refused_with_a_reason(data: bytes, message: str) -> None:
    with pytest.raises(Malformed, match=message):
        offers.decode_offer(data, NOW)


def test_a_body_with_a_wrong_field_is_refused_even_when_signed() -> None:
    body = canonical.encode({
        "offerer": BOB.public_key, "game": "chess", "stake": 1, "deposit": 5, "rounds": 1, "challenge": 600,
        "expires": NOW + 60, "serial": b"\x00" * 8,
    })  # fmt: skip
    data = canonical.encode({"offer": body, "signature": sign(BOB, offers.offer_message(body))})
    with pytest.raises(Malformed, match="'game' must be"):
        offers.decode_offer(data, NOW)


def test_terms_a_channel_could_not_be_opened_on_are_refused_when_made() -> None:
    with pytest.raises(ValueError, match="deposit must cover the stake"):
        published(Terms("xo", 60, 50, 1, 600))
    with pytest.raises(ValueError, match="'duration' must be a whole number of seconds from 1"):
        published(Terms("rps", 1, 5, 1, 0))
    with pytest.raises(ValueError, match="'stake' must be a whole number of chips from 1"):
        published(Terms("xo", 0, 5, 1, 600))


def test_the_accepters_channel_is_recognised_as_the_offers_nth_accept() -> None:
    offer = published().offer
    for k in (1, 2, 5):
        assert offers.accept_number(offer, offers.channel_fixed(offer, ALICE.public_key, k), count=5) == k
    assert offers.accept_number(offer, offers.channel_fixed(offer, ALICE.public_key, 6), count=5) is None


@pytest.mark.parametrize(
    "change",
    [
        {"stake": 11},
        {"deposits": (50, 49)},
        {"deposits": (51, 51)},
        {"duration": 601},
        {"app": "rps"},
    ],
)
def test_a_channel_whose_terms_differ_from_the_offer_is_not_an_accept(change: dict[str, object]) -> None:
    offer = published().offer
    fixed = offers.channel_fixed(offer, ALICE.public_key, 1)._replace(**change)
    assert offers.accept_number(offer, fixed, count=5) is None


def test_a_channel_of_other_rounds_or_another_name_or_seats_is_not_an_accept() -> None:
    offer = published().offer
    name = offers.channel_name(offer.id, 1)
    other_rounds = Fixed((ALICE.public_key, BOB.public_key), "xo", 10, (50, 50), 600, nonce_of(name, 4))
    other_name = Fixed((ALICE.public_key, BOB.public_key), "xo", 10, (50, 50), 600, nonce_of("duel", 3))
    swapped = Fixed((BOB.public_key, ALICE.public_key), "xo", 10, (50, 50), 600, nonce_of(name, 3))
    for fixed in (other_rounds, other_name, swapped):
        assert offers.accept_number(offer, fixed, count=5) is None


def test_offers_are_retained_one_topic_each_under_their_game() -> None:
    offer = published().offer
    assert offers.topic(offer) == f"xo/chips/offers/xo/{BOB.public_key}/{offer.id}"
    assert offers.subscription() == "xo/chips/offers/+/#"
    assert offers.subscription("rps") == "xo/chips/offers/rps/#"
