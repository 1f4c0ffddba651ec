"""``chips offer``'s loop outlives a REST API that goes away: it says so once, waits, and the offer stays up."""

from __future__ import annotations

import argparse
import threading
import time
from types import SimpleNamespace

from chips_cli import offers
from chips_client.offer_desk import Published
from chips_client.offers import Terms, make_offer
from client_core.errors import Unavailable
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
    from chips_client.offers import channel_fixed  # noqa: PLC0415
    from client_core.errors import Rejected  # noqa: PLC0415

    fixed = channel_fixed(make_offer(BOB, Terms("xo", 10, 50, 1, 600), int(time.time()) + 60).offer,
                          Signer.from_hex("11" * 32).public_key, 1)  # fmt: skip

    class JoinedMeanwhile:
        def submit_all(self, _transactions: list[object], what: str) -> str:
            raise Rejected(f"the validator rejected {what}: the channel is running")

        def channel(self, _address: str) -> object:
            return SimpleNamespace(status="running")

    assert offers._cancelled_or_joined(JoinedMeanwhile(), Signer.from_hex("11" * 32), fixed) is True  # type: ignore[arg-type]
