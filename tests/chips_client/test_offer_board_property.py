"""The board lists an offer exactly when the chain opens its accept: a Hypothesis property over the offered terms.

Each example signs an offer on generated terms (bypassing :func:`chips_client.offers.make_offer`'s
own check, as a hostile or buggy offerer would), reads it from the board as ``chips offers`` and the
page do, and sends the ``open`` that ``chips accept`` would send to chips-tp's handler, with the accepter
funded and the harness's network floor of 60 s. Whatever the board lists opens; whatever the ledger
refuses, the board does not list.
"""

from __future__ import annotations

import secrets
from unittest import mock

from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from chips_client import checks, offer_board
from chips_client import transactions as tx
from chips_client.offer_board import Post, read_board
from chips_client.offers import Offer, SignedOffer, Terms, channel_fixed, offer_message
from chips_tp.channel import MAX_AMOUNT, MAX_DURATION
from chips_tp.hashes import sign
from chips_tp.state import Account
from tests.chips_client.test_offer_board import RetainedBroker
from tests.chips_tp.harness import ALICE, BOB, FLOOR, ISSUER, NOW, Chain
from xo_web.offer_list import OfferList

#: Amounts around every boundary the family has: none, one, small, half the maximum (two deposits), the maximum.
AMOUNTS = st.one_of(
    st.integers(0, 3), st.integers(0, 200), st.sampled_from([MAX_AMOUNT // 2, MAX_AMOUNT // 2 + 1, MAX_AMOUNT]),
    st.integers(0, MAX_AMOUNT),
)  # fmt: skip
#: Challenge durations around the family's bounds and the network's floor.
DURATIONS = st.one_of(
    st.sampled_from([0, 1, FLOOR - 1, FLOOR, FLOOR + 1, MAX_DURATION, MAX_DURATION + 1]), st.integers(0, MAX_DURATION)
)


def signed_offer(terms: Terms) -> SignedOffer:
    """Bob's offer of ``terms``, signed whatever they are."""
    offer = Offer(BOB.public_key, terms, NOW + 600, secrets.token_bytes(8))
    return SignedOffer(offer, sign(BOB, offer_message(offer.body)))


def listed_by_the_command(signed: SignedOffer) -> bool:
    broker = RetainedBroker({})
    Post(broker, signed).publish()
    with mock.patch.object(offer_board, "QUIET_SECONDS", 0.0):  # the stand-in hands every offer over at once
        return read_board(broker, None, clock=lambda: NOW, floor=FLOOR).offers == [signed]


def listed_by_the_page(signed: SignedOffer) -> bool:
    board = OfferList()
    board.floor = FLOOR
    post = RetainedBroker({})
    Post(post, signed).publish()
    for where, payload in post.retained.items():
        board.received(where, payload, NOW)
    return board.open_offers(NOW) == [signed]


def opened_by_the_chain(signed: SignedOffer) -> str | None:
    """None when chips-tp opens the accept's channel (the accepter holding the deposit), else its refusal."""
    chain = Chain()
    deposit = signed.offer.terms.deposit
    if 1 <= deposit <= MAX_AMOUNT:
        assert chain.attempt(tx.issue(ISSUER, ALICE.public_key, deposit)) is None
    return chain.attempt(tx.open_channel(ALICE, channel_fixed(signed.offer, ALICE.public_key, 1)))


@given(game=st.sampled_from(["xo", "rps"]), stake=AMOUNTS, deposit=AMOUNTS, rounds=st.integers(0, 255),
       challenge=DURATIONS)  # fmt: skip
@example(game="xo", stake=0, deposit=50, rounds=3, challenge=600)  # the stake the board used to list
@example(game="rps", stake=10, deposit=50, rounds=1, challenge=FLOOR - 1)  # below the network's floor
@settings(max_examples=300, deadline=None)
def test_the_board_lists_an_offer_exactly_when_the_chain_opens_its_accept(
    game: str, stake: int, deposit: int, rounds: int, challenge: int
) -> None:
    signed = signed_offer(Terms(game, stake, deposit, rounds, challenge))
    refusal = opened_by_the_chain(signed)
    event("opens" if refusal is None else "refused")
    assert listed_by_the_command(signed) == (refusal is None), refusal
    assert listed_by_the_page(signed) == (refusal is None), refusal


def test_an_offer_of_stake_zero_is_not_listed_and_its_open_is_refused() -> None:
    signed = signed_offer(Terms("xo", 0, 50, 3, 600))
    assert "'stake' must be a whole number of chips from 1" in (opened_by_the_chain(signed) or "")
    assert not listed_by_the_command(signed)
    assert not listed_by_the_page(signed)


def test_chips_accept_refuses_the_open_of_such_an_offer_before_submitting_it() -> None:
    signed = signed_offer(Terms("xo", 0, 50, 3, 600))
    fixed = channel_fixed(signed.offer, ALICE.public_key, 1)
    refused = checks.open_refusal(None, Account(ALICE.public_key, 50), fixed, FLOOR)
    assert refused is not None and "'stake' must be a whole number of chips from 1" in refused
