"""rps through the REST API against ``xo-devnet`` running the real ``rps-tp``, with BlockInfo opening every block.

Alice and Bob play with the keys xo-devnet made for them; every op is a signed batch
POSTed to the REST API and waited for, as a player's command would do it. The clock the
games read is the BlockInfo of the block each op lands in. One devnet serves the
module's games (each has a name of its own).
"""

from __future__ import annotations

import base64
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import cbor2
import pytest

from rps_client.transactions import commit_moment, make_rps_transaction, reveal_moment, signed_for
from rps_tp.commitment import commitment, new_salt
from rps_tp.family import game_address, transaction_inputs, transaction_outputs
from rps_tp.game import Game, Moment, Settings
from rps_tp.ops import Claim, Commit, Create, Delete, Join, Op, Ready, Resign, Reveal, Setup
from rps_tp.state import decode_bucket
from tests.xo_devnet.e2e.conftest import fetch
from xo_core.batches import make_batch, make_batch_list, make_transaction
from xo_core.keyfiles import load_signer
from xo_core.protobuf.batch_pb2 import Batch
from xo_core.protobuf.block_info_pb2 import BlockInfoTxn
from xo_core.signing import Signer
from xo_devnet.spawn import DevnetProcess


class Players:
    """Alice and Bob at one devnet: each op is a signed batch, submitted and waited for."""

    def __init__(self, devnet, fetch_json) -> None:
        self.url = devnet.rest_url
        self.fetch = fetch_json
        self.keys = {name: load_signer(devnet.key_dir, name) for name in ("alice", "bob")}

    def key(self, name: str) -> str:
        return self.keys[name].public_key

    def at(self, game: str) -> Moment:
        """The moment of ``game`` in committed state: what an op on it is signed for, as a client signs it."""
        return signed_for(self.game_or_none(game))

    def sign(self, name: str, op: Op) -> Batch:
        """``op`` signed by ``name``, in a batch of its own: the bytes anyone who sees it can send again."""
        signer: Signer = self.keys[name]
        return make_batch(signer, [make_rps_transaction(signer, op)])

    def play(self, name: str, op: Op) -> dict:
        """Submit ``op`` signed by ``name`` and wait until it is decided; its batch status."""
        return self.post(self.sign(name, op))

    def post(self, batch: Batch) -> dict:
        """Submit ``batch`` and wait until it is decided; its batch status."""
        request = urllib.request.Request(
            f"{self.url}/batches",
            data=make_batch_list([batch]),
            headers={"Content-Type": "application/octet-stream"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.status == 202
        [status] = self.fetch(f"{self.url}/batch_statuses?id={batch.header_signature}&wait=60")["data"]
        status["transaction_id"] = batch.transactions[0].header_signature
        return status

    def ok(self, name: str, op: Op) -> dict:
        status = self.play(name, op)
        assert status["status"] == "COMMITTED", status
        return status

    def refused(self, name: str, op: Op) -> str:
        status = self.play(name, op)
        assert status["status"] == "INVALID", status
        return status["invalid_transactions"][0]["message"]

    def game(self, game: str) -> Game:
        found = self.game_or_none(game)
        assert found is not None, game
        return found

    def game_or_none(self, game: str) -> Game | None:
        entries = self.fetch(f"{self.url}/state?address={game_address(game)}")["data"]
        if not entries:
            return None
        return decode_bucket(game_address(game), base64.b64decode(entries[0]["data"])).get(game)

    def block_time(self, transaction_id: str) -> int:
        """The BlockInfo timestamp of the block holding ``transaction_id``: the time that op read."""
        block_id = self.fetch(f"{self.url}/transactions/{transaction_id}")["data"]["header_signature"]
        for block in self.fetch(f"{self.url}/blocks")["data"]:
            ids = [txn["header_signature"] for batch in block["batches"] for txn in batch["transactions"]]
            if block_id in ids:
                opener = block["batches"][0]["transactions"][0]
                assert opener["header"]["family_name"] == "block_info"
                return BlockInfoTxn.FromString(base64.b64decode(opener["payload"])).block.timestamp
        raise AssertionError(f"no block holds {transaction_id}")


@pytest.fixture(scope="module")
def players(tmp_path_factory) -> Iterator[Players]:
    log_path = tmp_path_factory.mktemp("rps") / "devnet.log"
    with DevnetProcess(log_path=log_path) as devnet:
        yield Players(devnet, fetch)


def start(players: Players, game: str, settings: Settings) -> dict:
    """Create, join and both ready: the status of the ready that starts play (and its clock)."""
    players.ok("alice", Create(game, settings=settings))
    players.ok("bob", Join(game, players.at(game)))
    players.ok("alice", Ready(game, players.at(game), settings))
    return players.ok("bob", Ready(game, players.at(game), settings))


def test_a_resign_refused_before_play_and_posted_again_once_play_has_started_is_refused_again(players):
    """Issue 23's replay: Bob's resign, INVALID while the game awaited its players, re-posted byte for byte once it
    started. Signed for the moment Bob's client read, it can never count at another: the game plays on."""
    players.ok("alice", Create("replay"))
    players.ok("bob", Join("replay", players.at("replay")))
    bobs_resign = players.sign("bob", Resign("replay", players.at("replay")))
    first = players.post(bobs_resign)
    assert first["status"] == "INVALID", first
    assert first["invalid_transactions"][0]["message"] == (
        "game 'replay' has not started yet: it starts once two players have joined and are ready"
    )
    players.ok("alice", Ready("replay", players.at("replay"), Settings(1, 300)))
    players.ok("bob", Ready("replay", players.at("replay"), Settings(1, 300)))

    again = players.post(bobs_resign)

    assert again["status"] == "INVALID", again
    assert again["invalid_transactions"][0]["message"] == (
        "game 'replay' is at round 1, commit phase; this resign was signed for round 0, setup phase: an op counts"
        " only in the round and phase it was signed for (read the game again, then sign a new one)"
    )
    game = players.game("replay")
    assert (game.state, game.conclusion_type) == ("PLAYING_GAME", None)


def test_an_rps_1_0_transaction_is_refused_naming_the_version_and_form_expected(players):
    """A client of rps 1.0 on this network: its old-form resign is refused, with what to send instead."""
    start(players, "old-client", Settings(1, 300))
    bob = players.keys["bob"]
    old = make_transaction(
        bob, cbor2.dumps({"op": "resign", "name": "old-client"}, canonical=True), family_name="rps",
        family_version="1.0", inputs=transaction_inputs("old-client"), outputs=transaction_outputs("old-client"),
    )  # fmt: skip
    status = players.post(make_batch(bob, [old]))
    assert status["status"] == "INVALID", status
    assert status["invalid_transactions"][0]["message"].startswith(
        "this is an rps 1.0 transaction; this processor implements rps 2.0, in which every op on an existing game"
        " names the round and phase it was signed for"
    )
    assert players.game("old-client").state == "PLAYING_GAME"


def test_a_whole_game_with_both_keys_through_the_rest_api(players):
    settings = Settings(points=2, timeout=300)
    began = start(players, "duel", settings)  # each phase's clock starts with the op that begins it
    assert players.game("duel").state == "PLAYING_GAME"
    assert players.game("duel").waiting_since == players.block_time(began["transaction_id"])
    throws = [("rock", "scissors"), ("paper", "paper"), ("scissors", "paper")]
    for number, (alices, bobs) in enumerate(throws, start=1):
        salts = {"alice": new_salt(), "bob": new_salt()}
        commit_phase = players.game("duel").waiting_since
        alice_commits = commitment("duel", number, players.key("alice"), alices, salts["alice"])
        players.ok("alice", Commit("duel", commit_moment(number), alice_commits))
        assert players.game("duel").waiting_since == commit_phase
        bob_commits = commitment("duel", number, players.key("bob"), bobs, salts["bob"])
        began = players.ok("bob", Commit("duel", commit_moment(number), bob_commits))
        assert players.game("duel").waiting_since == players.block_time(began["transaction_id"])
        players.ok("alice", Reveal("duel", reveal_moment(number), alices, salts["alice"]))
        last = players.ok("bob", Reveal("duel", reveal_moment(number), bobs, salts["bob"]))
        if number < len(throws):
            assert players.game("duel").waiting_since == players.block_time(last["transaction_id"])

    game = players.game("duel")
    assert (game.state, game.conclusion_type, game.history) == ("CONCLUDED", "normal", tuple(throws))
    assert [(result.outcome, result.final_score) for result in game.results] == [("won", 2), ("lost", 0)]
    receipt = fetch(f"{players.url}/receipts?id={last['transaction_id']}")["data"][0]
    [event] = receipt["events"]
    assert event["event_type"] == "rps/reveal"
    assert {item["key"]: item["value"] for item in event["attributes"]}["game-state"] == "CONCLUDED"
    players.ok("alice", Delete("duel", players.at("duel")))
    assert fetch(f"{players.url}/state?address={game_address('duel')}")["data"] == []


def test_refusals_come_back_with_the_processors_reason(players):
    start(players, "strict", Settings(points=1, timeout=300))
    salt = new_salt()
    assert players.refused("bob", Reveal("strict", players.at("strict"), "rock", salt)) == (
        "you have not committed in round 1 of game 'strict'; commit before you reveal"
    )
    assert players.refused("bob", Reveal("strict", reveal_moment(1), "rock", salt)).startswith(
        "game 'strict' is at round 1, commit phase; this reveal was signed for round 1, reveal phase"
    )
    players.ok("alice", Commit("strict", commit_moment(1), commitment("strict", 1, players.key("alice"), "rock", salt)))
    assert players.refused("alice", Reveal("strict", players.at("strict"), "rock", salt)) == (
        "your opponent has not committed in round 1 of game 'strict' yet; reveal once both players have committed"
    )
    bobs = commitment("strict", 1, players.key("bob"), "paper", new_salt())
    players.ok("bob", Commit("strict", commit_moment(1), bobs))
    assert players.refused("alice", Reveal("strict", reveal_moment(1), "paper", salt)) == (
        "paper with that salt does not match your commitment in round 1 of game 'strict'"
    )
    assert players.refused("alice", Claim("strict", players.at("strict"))) == (
        "you cannot claim game 'strict': you have not revealed in round 1 yourself, so your opponent is not holding"
        " the game up"
    )


def test_the_host_changes_the_settings_both_agree_again_and_a_player_resigns(players):
    players.ok("alice", Create("terms"))
    lobby = players.at("terms")
    players.ok("bob", Join("terms", lobby))
    players.ok("bob", Ready("terms", lobby, Settings(points=1, timeout=300)))
    assert players.refused("bob", Setup("terms", lobby, Settings(points=3, timeout=60))).startswith("only the host of")
    players.ok("alice", Setup("terms", lobby, Settings(points=3, timeout=60)))
    assert players.refused("bob", Ready("terms", lobby, Settings(points=1, timeout=300))) == (
        "game 'terms' is now set up as first to 3 points, 60 s to act, not first to 1 point, 5 min 0 s to"
        " act: be ready for its current settings"
    )
    players.ok("alice", Ready("terms", lobby, Settings(points=3, timeout=60)))
    players.ok("bob", Ready("terms", lobby, Settings(points=3, timeout=60)))
    assert players.game("terms").state == "PLAYING_GAME"
    players.ok("bob", Resign("terms", players.at("terms")))

    game = players.game("terms")
    assert (game.state, game.conclusion_type) == ("CONCLUDED", "by-resignation")
    assert [result.outcome for result in game.results] == ["won", "resigned"]
    assert players.refused("bob", Resign("terms", players.at("terms"))) == "game 'terms' is over"


def test_a_player_kept_waiting_claims_the_game_once_the_blockinfo_time_says_the_time_out_is_over(players):
    quick = Settings(points=1, timeout=3)
    began = start(players, "stall", quick)
    players.ok(
        "alice", Commit("stall", commit_moment(1), commitment("stall", 1, players.key("alice"), "rock", new_salt()))
    )
    waiting_since = players.game("stall").waiting_since
    assert waiting_since == players.block_time(began["transaction_id"])  # from the start of play, not the commit
    early = players.refused("alice", Claim("stall", players.at("stall")))
    assert early.startswith("your opponent still has ")
    assert early.endswith(" to commit in round 1 of game 'stall'")

    time.sleep(max(0.0, waiting_since + quick.timeout - time.time()) + 0.05)
    claimed = players.ok("alice", Claim("stall", players.at("stall")))

    assert players.block_time(claimed["transaction_id"]) >= waiting_since + quick.timeout
    game = players.game("stall")
    assert (game.state, game.conclusion_type) == ("CONCLUDED", "by-timeout")
    assert [result.outcome for result in game.results] == ["won", "timed-out"]


def test_every_block_of_the_devnet_opens_with_its_blockinfo_and_nobody_else_may_write_one(players):
    players.ok("alice", Create("opening"))
    players.ok("bob", Join("opening", players.at("opening")))
    blocks = fetch(f"{players.url}/blocks?limit=1000")["data"]
    assert [block["header"]["block_num"] for block in blocks][-1] == "0"
    for block in blocks[:-1]:
        number = int(block["header"]["block_num"])
        opener = block["batches"][0]["transactions"][0]
        assert opener["header"]["family_name"] == "block_info"
        assert BlockInfoTxn.FromString(base64.b64decode(opener["payload"])).block.block_num == number - 1
    alice = players.keys["alice"]
    forged = make_transaction(
        alice, b"any time I like", family_name="block_info", family_version="1.0",
        inputs=["00b10c"], outputs=["00b10c"],
    )  # fmt: skip
    request = urllib.request.Request(
        f"{players.url}/batches",
        data=make_batch_list([make_batch(alice, [forged])]),
        headers={"Content-Type": "application/octet-stream"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=60)
    error = json.loads(refused.value.read())["error"]
    assert (refused.value.code, error["code"]) == (400, 30)
    assert "transaction family block_info is written only by the ledger itself" in error["message"]
