"""The ledger as referee, against the stand-in REST API (no ACA-Py needed: runs on every Python)."""

from __future__ import annotations

import asyncio

import pytest

from xo_aries import referee as referee_module
from xo_aries.player import Refusal, invited, opened, own_move
from xo_aries.referee import LedgerUnavailable, Referee, reason_code
from xo_core.keyfiles import write_key_pair
from xo_core.signing import Signer
from xo_tp import rules

GAME = "3f0c6a1e-0d6c-4a53-9b1e-2f4c2b9d7a10"


@pytest.fixture
def keys(tmp_path):
    for name in ("alice", "bob", "eve"):
        write_key_pair(tmp_path, name, Signer.generate())
    return tmp_path


def run(coroutine):
    return asyncio.run(coroutine)


def test_the_processors_reasons_become_the_seeds_codes():
    game = rules.new_game("g")
    game = rules.take(game, 5, "alice")
    with pytest.raises(rules.IllegalMove) as taken:
        rules.take(rules.take(game, 1, "bob"), 1, "alice")
    assert reason_code(str(taken.value)) == "already-occupied"
    with pytest.raises(rules.IllegalMove) as turn:
        rules.take(rules.take(game, 1, "bob"), 2, "eve")
    assert reason_code(str(turn.value)) == "not-your-turn"
    assert reason_code("game 'g' is over (P1-WIN)") == "bad-move"


def test_without_a_ledger_every_move_stands():
    referee = Referee.from_settings({})
    assert not referee.enabled
    assert run(referee.own_move(GAME, opened("X", "B2"))) == {}
    assert run(referee.their_move("a,b", invited("X", ["X:B2"]))) == {}


def test_my_first_move_creates_the_game_and_the_ledger_then_holds_it(fake, keys):
    referee = Referee(fake.url, "alice", keys)
    info = run(referee.own_move(GAME, opened("X", "B2")))
    assert [move.payload for move in fake.submitted] == [f"{GAME},create,", f"{GAME},take,5"]
    assert (info["name"], info["board"], info["state"]) == (GAME, "----X----", "P2-NEXT")
    assert info["batch_id"] == fake.submitted[0].batch_id


def test_a_move_the_ledger_refuses_is_a_refusal_with_the_seeds_code(fake, keys):
    fake.put_game(GAME, "----X----", "P2-NEXT", "02" + "a" * 64, "02" + "e" * 64)  # someone else holds O's seat
    mine = own_move(invited("X", ["X:B2"]), "A1")
    with pytest.raises(Refusal) as refused:
        run(Referee(fake.url, "bob", keys).own_move(GAME, mine))
    assert refused.value.code == "not-your-turn" and refused.value.conflict
    assert "the ledger refused O:A1" in refused.value.explanation


def test_their_move_must_be_on_the_ledger(fake, keys, monkeypatch):
    monkeypatch.setattr(referee_module, "SETTLE", 0.2)
    referee = Referee(fake.url, "bob", keys)
    fake.put_game(GAME, "----X----", "P2-NEXT", "02" + "a" * 64, "")
    assert run(referee.their_move(GAME, invited("X", ["X:B2"])))["board"] == "----X----"
    with pytest.raises(Refusal) as missing:
        run(referee.their_move(GAME, invited("X", ["X:A1"])))
    assert missing.value.code == "bad-move"
    assert "the ledger does not record X:A1: its board is ----X---- (P2-NEXT)" in missing.value.explanation


def test_an_unreachable_ledger_sends_nothing_and_confirms_nothing(keys, closed_port, monkeypatch):
    monkeypatch.setattr(referee_module, "SETTLE", 0.2)
    referee = Referee(f"http://127.0.0.1:{closed_port}", "alice", keys)
    with pytest.raises(LedgerUnavailable):
        run(referee.own_move(GAME, opened("X", "B2")))
    with pytest.raises(Refusal, match="cannot confirm"):
        run(referee.their_move(GAME, invited("X", ["X:B2"])))


def test_a_thread_id_that_cannot_name_a_game_cannot_be_anchored(fake, keys):
    with pytest.raises(Refusal) as refused:
        run(Referee(fake.url, "alice", keys).own_move("a,b", opened("X", "B2")))
    assert refused.value.code == "bad-message"
    assert fake.submitted == []


def test_a_missing_key_is_the_ledger_unavailable(fake, keys):
    with pytest.raises(LedgerUnavailable, match="nobody"):
        run(Referee(fake.url, "nobody", keys).own_move(GAME, opened("X", "B2")))
