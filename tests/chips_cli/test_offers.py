"""``chips offer``'s loop: it outlives a REST API that goes away, and a join refused does not stop it."""

from __future__ import annotations

import argparse
import threading
import time
from types import SimpleNamespace

import pytest

from chips_cli import offers
from chips_client import offer_board
from chips_client.offer_desk import Published
from chips_client.offers import Terms, channel_fixed, make_offer
from chips_tp.channel import channel_id
from chips_tp.state import FUNDING, Channel
from client_core.errors import Rejected, Unavailable
from client_core.ratings import Standing
from xo_core.signing import Signer

BOB = Signer.from_hex("22" * 32)


class FlakyChain:
    """A chain that cannot be reached for its first ``down`` reads, then lists no accepts."""

    def __init__(self, down: int) -> None:
        self.down, self.reads = down, 0

    def channels(self) -> list[object]:
        self.reads += 1
        if self.reads <= self.down:
            raise Unavailable("cannot reach the REST API at http://127.0.0.1:8008: Connection refused")
        return []

    def balance(self, _key: str) -> int:
        return 1000


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
    offering = offers.Offering(argparse.Namespace(key_dir=None, username="bob"), BOB, chain, board, published,  # type: ignore[arg-type]
                               threading.Event(), None)  # fmt: skip
    monkeypatch.setattr(offers.session, "key_names", lambda _args: offers.KeyNames({}))
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
    """A chain listing funding accepts of an offer; each join submitted is refused if its accepter is in ``gone``."""

    def __init__(self, published: Published, accepters: list[Signer], gone: set[str]) -> None:
        fixed = [channel_fixed(published.signed.offer, a.public_key, 1) for a in accepters]
        self.listed = [Channel(channel_id(f), f, FUNDING, (True, False), 50, 0, None, None, None) for f in fixed]
        self.gone, self.joins = gone, 0

    def channels(self) -> list[Channel]:
        return self.listed

    def balance(self, _key: str) -> int:
        return 1000

    def submit_all(self, _transactions: list[object], what: str) -> str:
        joined = self.listed[self.joins]
        self.joins += 1
        if joined.fixed.participants[0] in self.gone:
            raise Rejected(f"the validator rejected {what}: the channel was cancelled")
        return "batch"


def test_a_house_joins_every_accept_and_says_the_one_cancelled_first_without_stopping(capsys, monkeypatch):
    monkeypatch.setattr(offers.session, "key_names", lambda _args: offers.KeyNames({}))
    published = Published(make_offer(BOB, Terms("xo", 10, 50, 1, 600), int(time.time()) + 60), 10)
    crowd = [Signer.from_hex(f"{n:02x}" * 32) for n in range(1, 4)]
    chain = Accepted(published, crowd, {crowd[0].public_key})
    started: list[bytes] = []
    house = SimpleNamespace(start=lambda channel, _name: started.append(channel.id))
    offering = offers.Offering(argparse.Namespace(key_dir=None, username="bob"), BOB, chain, Board(), published,  # type: ignore[arg-type]
                               threading.Event(), house)  # fmt: skip
    pending: set[bytes] = set()
    offers._one_pass(offering, set(), pending)
    assert chain.joins == 3
    assert started == [c.id for c in chain.listed[1:]] and published.joined == set(started) and not pending
    said = capsys.readouterr().out
    assert f"could not join {crowd[0].public_key[:6]}...'s accept ({chain.listed[0].id.hex()[:8]}): the validator " \
           "rejected the join: the channel was cancelled" in said  # fmt: skip


def test_a_person_joins_one_accept_a_pass_and_reads_the_chain_again_after_the_match(monkeypatch):
    monkeypatch.setattr(offers.session, "key_names", lambda _args: offers.KeyNames({}))
    played: list[str] = []
    monkeypatch.setattr(offers.play, "play", lambda args: played.append(args.channel))
    published = Published(make_offer(BOB, Terms("xo", 10, 50, 1, 600), int(time.time()) + 60), 10)
    chain = Accepted(published, [Signer.from_hex(f"{n:02x}" * 32) for n in range(1, 4)], set())
    offering = offers.Offering(argparse.Namespace(key_dir=None, username="bob"), BOB, chain, Board(), published,  # type: ignore[arg-type]
                               threading.Event(), None)  # fmt: skip
    offers._one_pass(offering, set(), set())
    assert chain.joins == 1 and played == [offers.channel_name(published.signed.offer.id, 1)]  # the accepter's name


def test_an_offerers_rating_counts_games_with_their_plural_and_marks_a_provisional_one():
    one = Standing("02" + "a" * 64, 29.664, 7.821, 1, 1, 0, 0)
    assert offers.rating_text(one) == "rated 29.66? ± 7.82 (1 game)"
    seasoned = one._replace(games=6, wins=4, losses=1, draws=1)
    assert offers.rating_text(seasoned) == "rated 29.66 ± 7.82 (6 games)"
    assert offers.rating_text(None) == "no staked games yet"
    for said in (offers.rating_text(one), offers.rating_text(seasoned), offers.rating_text(None)):
        assert "match" not in said and "1 games" not in said


@pytest.mark.parametrize("game", ["xo", "rps"])
def test_no_open_offers_of_a_game_suggests_offering_one_of_that_game(monkeypatch, capsys, game):
    monkeypatch.setattr(offers, "_board", lambda _args, _game, _floor: offer_board.Board([], 0))
    monkeypatch.setattr(offers, "chain_floor", lambda _args: 600)
    args = argparse.Namespace(game=game, format="table", key_dir=None, username="dave", url=None)
    monkeypatch.setattr(offers.session, "own_public_key", lambda _args: None)
    monkeypatch.setattr(offers.session, "key_names", lambda _args: offers.KeyNames({}))
    assert offers.offers(args) == 0
    said = capsys.readouterr().out
    assert said == f"no open offers of {game}; make one with: chips offer --game {game} --stake 10 --deposit 50\n"
