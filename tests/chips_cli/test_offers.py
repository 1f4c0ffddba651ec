"""``chips offer``'s loop: it outlives a REST API that goes away, and a join refused does not stop it."""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from chips_cli import offers
from chips_cli.context import Playing
from chips_client import offer_board
from chips_client.channel_feed import ChannelBook
from chips_client.channels import address_of
from chips_client.declines import make_decline
from chips_client.offer_desk import Published
from chips_client.offers import Terms, channel_fixed, make_offer
from chips_tp.channel import channel_id
from chips_tp.state import FUNDING, Channel, encode_channel
from client_core.answers import BatchStatus, StateChange
from client_core.blocks import BlockChanges, BlockRef
from client_core.broker import BrokerAddress
from client_core.caller import Caller, Where, Who
from client_core.errors import Rejected, Unavailable
from client_core.ratings import Standing
from xo_core.signing import Signer

BOB = Signer.from_hex("22" * 32)
CALLER = Caller(Who("bob", "bob", Path("/nonexistent/keys")),
                Where("http://127.0.0.1:8008", None, None, "chips", False))
PLAYING = Playing(BrokerAddress.parse("mqtt://127.0.0.1:1883"), None, None, auto_respond=True, wait=None)


class FlakyChain:
    """A chain that cannot be reached for its first ``down`` reads of the offerer's balance."""

    def __init__(self, down: int) -> None:
        self.down, self.reads = down, 0

    def balance(self, _key: str) -> int:
        self.reads += 1
        if self.reads <= self.down:
            raise Unavailable("cannot reach the REST API at http://127.0.0.1:8008: Connection refused")
        return 1000


def no_decline(channel: Channel, reason: str) -> None:
    raise AssertionError(f"nothing should be declined here, but {channel.id.hex()[:8]} was: {reason}")


class Board:
    def __init__(self) -> None:
        self.published, self.withdrawn = 0, 0

    def publish(self) -> None:
        self.published += 1

    def withdraw(self) -> None:
        self.withdrawn += 1


def test_the_offer_waits_for_a_rest_api_away_saying_so_once_and_is_withdrawn_when_it_expires(capsys, monkeypatch):
    monkeypatch.setattr(offers, "POLL_SECONDS", 0.01)
    monkeypatch.setattr(offers, "CHAIN_RETRY_SECONDS", (0.01, 0.02))
    published = Published(make_offer(BOB, Terms("xo", 10, 50, 1, 600), int(time.time()) + 2), 1)
    chain, board = FlakyChain(down=3), Board()
    offering = offers.Offering(CALLER, PLAYING, BOB, chain, board, published,  # type: ignore[arg-type]
                               threading.Event(), None, ChannelBook(), no_decline)  # fmt: skip
    offers._serve(offering)
    said = capsys.readouterr().out
    assert said.count("cannot reach the REST API") == 1 and "retrying (the offer stays open)" in said
    assert "the REST API answers again" in said and "the offer is withdrawn: it expired" in said
    assert chain.reads > 3 and board.withdrawn == 1


def test_a_cancel_that_loses_the_race_to_the_offerers_join_plays_the_match_instead():
    fixed = channel_fixed(make_offer(BOB, Terms("xo", 10, 50, 1, 600), int(time.time()) + 60).offer,
                          Signer.from_hex("11" * 32).public_key, 1)  # fmt: skip

    class JoinedMeanwhile:
        def submit_all(self, _transactions: list[object], what: str) -> str:
            raise Rejected(f"the validator rejected {what}: the channel is running")

        def channel(self, _address: str) -> object:
            return SimpleNamespace(status="running")

    assert offers._cancelled_or_joined(JoinedMeanwhile(), Signer.from_hex("11" * 32), fixed) is True  # type: ignore[arg-type]


class Accepted:
    """Funding accepts of an offer in a followed book; the joins posted are counted, and the test commits them."""

    def __init__(self, published: Published, accepters: list[Signer]) -> None:
        fixed = [channel_fixed(published.signed.offer, a.public_key, 1) for a in accepters]
        self.listed = [Channel(channel_id(f), f, FUNDING, (True, False), 50, 0, None, None, None) for f in fixed]
        self.book = ChannelBook()
        self.book.reset(self.listed, BlockRef("01" * 8, 1))
        self.posts: list[int] = []

    def balance(self, _key: str) -> int:
        return 1000

    def post_each(self, transactions: list[object]) -> list[str]:
        self.posts.append(len(transactions))
        return [f"batch-{n}" for n in range(len(transactions))]

    def commit(self, number: int, joined: list[Channel], cancelled: list[Channel]) -> None:
        """A block: the joins of ``joined`` committed, and ``cancelled`` closed by their accepters."""
        changes = [StateChange(address_of(c.fixed), "SET", encode_channel(c._replace(status="running",
                                                                                      funded=(True, True))))
                   for c in joined] + [StateChange(address_of(c.fixed), "SET", encode_channel(c._replace(
                       status="closed", funded=(False, False), held=0))) for c in cancelled]  # fmt: skip
        self.book.apply(BlockChanges(f"{number:02x}" * 8, number, f"{number - 1:02x}" * 8, tuple(changes)))


def test_a_house_joins_every_accept_in_one_post_and_says_the_one_cancelled_first_without_stopping(capsys, monkeypatch):
    published = Published(make_offer(BOB, Terms("xo", 10, 50, 1, 600), int(time.time()) + 60), 10)
    crowd = [Signer.from_hex(f"{n:02x}" * 32) for n in range(1, 4)]
    chain = Accepted(published, crowd)
    started: list[bytes] = []
    house = SimpleNamespace(start=lambda channel, _name: started.append(channel.id), admits=lambda _pending: 100)
    offering = offers.Offering(CALLER, PLAYING, BOB, chain, Board(), published,  # type: ignore[arg-type]
                               threading.Event(), house, chain.book, no_decline)  # fmt: skip
    desk = offers.Desk()
    offers._one_pass(offering, desk)
    assert chain.posts == [3] and len(desk.pending) == 3 and not started
    chain.commit(2, chain.listed[1:], chain.listed[:1])
    offers._one_pass(offering, desk)
    assert started == [c.id for c in chain.listed[1:]] and published.joined == set(started) and not desk.pending
    assert chain.posts == [3], "nothing is joined twice"
    said = capsys.readouterr().out
    assert f"could not join {crowd[0].public_key[:6]}...'s accept ({chain.listed[0].id.hex()[:8]}): it was " \
           "cancelled first" in said  # fmt: skip


def test_a_join_never_seen_is_asked_after_and_a_refusal_said_and_forgotten(capsys, monkeypatch):
    monkeypatch.setattr(offers, "JOIN_CHECK_SECONDS", 0.0)
    published = Published(make_offer(BOB, Terms("xo", 10, 50, 1, 600), int(time.time()) + 60), 10)
    chain = Accepted(published, [Signer.from_hex("01" * 32)])
    chain.client = SimpleNamespace(batch_status=lambda _id: BatchStatus("INVALID", ["the offerer cannot pay"]))  # type: ignore[attr-defined]
    offering = offers.Offering(CALLER, PLAYING, BOB, chain, Board(), published,  # type: ignore[arg-type]
                               threading.Event(), SimpleNamespace(start=None, admits=lambda _n: 100), chain.book,
                               no_decline)  # fmt: skip
    desk = offers.Desk()
    offers._one_pass(offering, desk)
    offers._one_pass(offering, desk)
    said = capsys.readouterr().out
    assert f"could not join 031b84...'s accept ({chain.listed[0].id.hex()[:8]}): the offerer cannot pay" in said
    assert chain.posts == [1, 1], "the accept is joined again: the refusal may have been the chips, since paid in"


def test_a_person_joins_one_accept_a_pass_and_looks_again_after_the_match(monkeypatch):
    played: list[str] = []
    monkeypatch.setattr(offers.play, "play_channel", lambda _caller, _playing, channel: played.append(channel))
    published = Published(make_offer(BOB, Terms("xo", 10, 50, 1, 600), int(time.time()) + 60), 10)
    chain = Accepted(published, [Signer.from_hex(f"{n:02x}" * 32) for n in range(1, 4)])
    offering = offers.Offering(CALLER, PLAYING, BOB, chain, Board(), published,  # type: ignore[arg-type]
                               threading.Event(), None, chain.book, no_decline)  # fmt: skip
    desk = offers.Desk()
    offers._one_pass(offering, desk)
    assert chain.posts == [1]
    chain.commit(2, chain.listed[:1], [])
    offers._one_pass(offering, desk)
    assert played == [offers.channel_name(published.signed.offer.id, 1)] and chain.posts == [1]  # the accepter's name


def test_accepts_the_house_cannot_fund_are_declined_at_once_and_a_busy_house_waits_then_declines(capsys, monkeypatch):
    published = Published(make_offer(BOB, Terms("xo", 10, 50, 1, 600), int(time.time()) + 60), 10)
    chain = Accepted(published, [Signer.from_hex(f"{n:02x}" * 32) for n in range(1, 5)])
    chain.balance = lambda _key: 120  # type: ignore[method-assign]  # two deposits of 50, not three
    declined: dict[bytes, str] = {}
    busy = [False]
    house = SimpleNamespace(start=lambda _channel, _name: None, admits=lambda _n: 0 if busy[0] else 1)
    offering = offers.Offering(CALLER, PLAYING, BOB, chain, Board(), published,  # type: ignore[arg-type]
                               threading.Event(), house, chain.book,
                               lambda channel, reason: declined.__setitem__(channel.id, reason))  # fmt: skip
    desk = offers.Desk()
    offers._one_pass(offering, desk)
    unfunded = {c.id for c in chain.listed[2:]}
    assert chain.posts == [1] and set(declined) == unfunded, "one admitted now, one waits its turn, two never"
    assert set(declined.values()) == {"the offerer cannot fund another deposit of 50 now"}
    busy[0] = True
    monkeypatch.setattr(offers, "BUSY_DECLINE_SECONDS", 0.0)
    offers._one_pass(offering, desk)
    assert chain.posts == [1] and declined[chain.listed[1].id].startswith("the house is too busy")
    assert len(declined) == 3 and capsys.readouterr().out.count("told them so") == 3
    busy[0] = False
    offers._one_pass(offering, desk)
    assert chain.posts == [1], "an accept declined is never joined: its accepter is cancelling it"


def test_an_accepter_stops_waiting_for_the_join_the_moment_its_offerer_declines_and_only_then():
    fixed = channel_fixed(make_offer(BOB, Terms("xo", 10, 50, 1, 600), int(time.time()) + 60).offer,
                          Signer.from_hex("11" * 32).public_key, 1)  # fmt: skip
    opened = Channel(channel_id(fixed), fixed, FUNDING, (True, False), 50, 0, None, None, None)
    book = ChannelBook()
    book.reset([opened], BlockRef("01" * 8, 1))
    declined = offers.Declined(opened.id, BOB.public_key)
    stranger = Signer.from_hex("33" * 32)
    threading.Timer(0.05, declined.receive, ("t", make_decline(stranger, opened.id, "go away"))).start()
    threading.Timer(0.1, declined.receive, ("t", make_decline(BOB, opened.id, "the house is full"))).start()
    started = time.monotonic()
    assert offers._await_join(book, address_of(fixed), 30.0, declined) is False
    assert time.monotonic() - started < 5 and declined.reason == "the house is full"


def test_an_offerers_rating_counts_games_with_their_plural_and_marks_a_provisional_one():
    one = Standing("02" + "a" * 64, 29.664, 7.821, 1, 1, 0, 0)
    assert offers.rating_text(one) == "rated 29.66? ± 7.82 (1 game)"
    seasoned = one._replace(games=6, wins=4, losses=1, draws=1)
    assert offers.rating_text(seasoned) == "rated 29.66 ± 7.82 (6 games)"
    assert offers.rating_text(None) == "no staked games yet"
    for said in (offers.rating_text(one), offers.rating_text(seasoned), offers.rating_text(None)):
        assert "match" not in said and "1 games" not in said


@pytest.mark.parametrize("game", ["xo", "rps"])
def test_no_open_offers_of_a_game_suggests_offering_one_of_that_game(monkeypatch, capsys, tmp_path, game):
    monkeypatch.setattr(offers, "_board", lambda _broker, _game, _floor: offer_board.Board([], 0))
    monkeypatch.setattr(offers, "chain_floor", lambda _where: 600)
    args = argparse.Namespace(game=game, format="table", key_dir=str(tmp_path), username="dave", url=None, broker=None)
    assert offers.offers(args) == 0
    said = capsys.readouterr().out
    assert said == f"no open offers of {game}; make one with: chips offer --game {game} --stake 10 --deposit 50\n"
