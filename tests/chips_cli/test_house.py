"""A house: a match whose start meets a REST API out of reach waits for it; an opponent who stops is challenged."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from chips_cli import house
from chips_cli.context import Playing
from chips_cli.house import House
from chips_client.store import ChannelTerms
from chips_tp.channel import Fixed
from client_core.broker import BrokerAddress
from client_core.errors import Unavailable
from client_core.keys import KeyNames
from xo_core.signing import Signer

BOB = Signer.from_hex("22" * 32)
FIXED = Fixed(("03" + "b" * 64, BOB.public_key), "xo", 10, (50, 50), 600, 7)


def test_a_match_is_started_again_until_the_rest_api_answers_and_said_once(monkeypatch):
    monkeypatch.setattr(house, "CHAIN_RETRY_SECONDS", (0.001, 0.002))
    said: list[str] = []
    served = object.__new__(House)
    served.signer, served.names, served.say, served.outcomes = BOB, KeyNames({}), said.append, {}
    attempts = []

    def match(_channel, _terms, _shown):
        attempts.append(1)
        if len(attempts) < 3:
            raise Unavailable("cannot reach the REST API at http://127.0.0.1:8008: Connection refused")
        return SimpleNamespace(story=SimpleNamespace(ending=lambda _outcome: "; you won the match 1-0")), "concluded"

    served._match = match
    channel = SimpleNamespace(id=b"\x01" * 32, fixed=FIXED)
    served._play(channel, ChannelTerms("offer-1", FIXED, 1))
    assert len(attempts) == 3 and served.outcomes == {b"\x01" * 32: "concluded"}
    assert sum("retrying" in line for line in said) == 1
    assert said[-1].endswith("concluded; you won the match 1-0")


def test_a_house_is_patient_for_a_minute_unless_told_otherwise():
    """Without patience a house would wait for ever on an accepter who walked away, its deposit held."""
    assert house.patience(playing(None)) == house.HOUSE_PATIENCE_SECONDS == 60.0
    assert house.patience(playing(2.5)) == 2.5


def playing(patience: float | None) -> Playing:
    """A house's flags as ``chips offer --bot perfect [--patience SECONDS]`` resolves them."""
    return Playing(BrokerAddress.parse("mqtt://127.0.0.1:1883"), "perfect", patience, auto_respond=True, wait=None)


@pytest.mark.parametrize(("late", "broker_lag", "pending", "admitted"),
                         [(0.0, 0.0, 0, 100), (0.0, 0.0, 60, 40), (0.3, 0.0, 0, 0), (0.0, 0.4, 0, 100),
                          (0.0, 0.6, 0, 0)])  # fmt: skip
def test_a_house_starts_no_match_while_it_or_its_broker_runs_behind(late, broker_lag, pending, admitted):
    """Its running matches come first: a house late on its own pulse, or whose broker takes seconds to acknowledge
    (a crowd's messages queued in it), starts no more until they catch up."""
    served = object.__new__(House)
    served.pulse = SimpleNamespace(late=late)
    served.hub = SimpleNamespace(lag=broker_lag)
    assert served.admits(pending) == admitted
