"""Every line a match says is in words: names, never participant numbers, position names or Unix times.

Two players' :class:`chips_client.match.Match` play through the fake broker and chain
(as in ``test_match``), each with the key names of a key directory, and each side's
lines are read as a person would: who moved, who won each game or round, the score.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from chips_client.asking import Immediate
from chips_client.channels import nonce_of
from chips_client.match import Match
from chips_client.store import ChannelTerms, Store
from chips_tp.channel import Fixed
from client_core.keys import KeyNames
from tests.chips_client.fakes import FakeBroker, FakeChain
from tests.chips_client.test_match import ALICE, BOB, Bot, Crashing

LIMIT = 20.0
NAMES = KeyNames({ALICE.public_key: "alice", BOB.public_key: "bob"})
#: What a line for a person never holds: a participant's number, a position of the specification, a Unix time.
NEVER = re.compile(r"participant [01]|XPlaying|OPlaying|PlayAgainMe|RoundProposed|RoundAccepted|\bReveal\b|"
                   r"\bStart\b|Victory|\bDraw\b|\b1\d{9}\b")  # fmt: skip


def play(app: str, tmp_path: Path) -> dict[str, list[str]]:
    fixed = Fixed((ALICE.public_key, BOB.public_key), app, 10, (100, 100), 60, nonce_of("words", 2))
    terms = ChannelTerms("words", fixed, 2)
    broker, chain = FakeBroker(), FakeChain(fixed)
    said: dict[str, list[str]] = {"alice": [], "bob": []}
    sides = {
        name: Match(signer=signer, terms=terms, store=Store(tmp_path / f"{name}.sqlite"), chain=chain,
                    connect=broker.session, chooser=Immediate(Bot(seed)), say=said[name].append, clock=chain.clock,
                    names=NAMES)
        for name, signer, seed in (("alice", ALICE, 1), ("bob", BOB, 2))
    }  # fmt: skip
    outcomes: dict[str, object] = {}
    threads = [threading.Thread(target=lambda n=n, m=m: outcomes.update({n: m.run(LIMIT)})) for n, m in sides.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(LIMIT + 5)
    assert outcomes == {"alice": "concluded", "bob": "concluded"}
    return said


@pytest.mark.parametrize("app", ["xo", "rps"])
def test_each_side_hears_the_match_by_name_with_every_winner_and_the_score(app, tmp_path):
    said = play(app, tmp_path)
    noun = "game" if app == "xo" else "round"
    for me, other in (("alice", "bob"), ("bob", "alice")):
        lines = said[me]
        assert [line for line in lines if NEVER.search(line)] == []
        text = "\n".join(lines)
        assert other in text and "you " in text and f" {me} " not in text  # the reader is "you", never by name
        for number in (1, 2):
            assert re.search(rf"(won {noun} {number} of 2|{noun} {number} of 2 is a (draw|tie))", text), text
        assert re.search(r"(you lead|leads|level at) \d-\d", text)
        assert re.search(r"(won the match|the match is drawn) \d-\d", text)
        if app == "xo":
            assert sum("goes to whoever moved last" in line for line in lines) == 1
        else:
            assert re.search(r"revealed (rock|paper|scissors) against (your|bob's|alice's) (rock|paper|scissors)", text)


def test_a_resumed_match_says_where_it_stands_in_words(tmp_path):
    fixed = Fixed((ALICE.public_key, BOB.public_key), "xo", 10, (100, 100), 60, nonce_of("again", 2))
    terms = ChannelTerms("again", fixed, 2)
    broker, chain = FakeBroker(), FakeChain(fixed)
    said: list[str] = []

    def side(signer, chooser, say) -> Match:
        store = Store(tmp_path / f"{signer.public_key}.sqlite")
        return Match(signer=signer, terms=terms, store=store, chain=chain, connect=broker.session,
                     chooser=Immediate(chooser), say=say, clock=chain.clock, names=NAMES)  # fmt: skip

    alice = side(ALICE, Bot(1), lambda _line: None)
    thread = threading.Thread(target=alice.run, args=(LIMIT,))
    thread.start()
    with pytest.raises(SystemExit):
        side(BOB, Crashing(7, moves=2), lambda _line: None).run(LIMIT)
    assert side(BOB, Bot(2), said.append).run(LIMIT) == "concluded"
    thread.join(LIMIT)
    resumed = said[0]
    assert re.fullmatch(r"resuming channel 'again' at turn \d+, from your store: game 1 of 2, .*", resumed), resumed
    assert not NEVER.search(resumed)
