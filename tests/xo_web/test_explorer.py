"""The page's explorer against xo-devnet: a game's transactions in words, and one transaction with its outcome.

``/api/chain/transactions`` and ``/api/chain/transaction`` say what ``xo chain`` says: each transaction by its
family's reader, keys by their names, the block's time; never a payload, an HTTP verb or a raw board.
"""

from __future__ import annotations

import re

import pytest

from xo_cli import chain
from xo_tp.family import game_address
from xo_web import explorer

TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


@pytest.fixture(scope="module")
def played(server):
    """alice creates web-chain and takes the centre, bob answers in a corner: three xo transactions."""
    for player, action, space in (("alice", "create", None), ("alice", "take", 5), ("bob", "take", 1)):
        assert server.post_move(player, action, "web-chain", space).status == 200
    return server


def test_a_game_lists_its_transactions_oldest_first_each_in_words(played):
    answer = played.request("GET", "/api/chain/transactions?game=web-chain")
    assert answer.status == 200
    listed = answer.json()
    subject = (listed["kind"], listed["shown"], listed["address"])
    assert subject == ("game", "game 'web-chain'", game_address("web-chain"))
    rows = listed["transactions"]
    assert [(row["words"], row["signer_name"], row["family"]) for row in rows] == [
        ("xo create web-chain", "alice", "xo"), ("xo take web-chain 5", "alice", "xo"),
        ("xo take web-chain 1", "bob", "xo"),
    ]  # fmt: skip
    numbers = [row["block_num"] for row in rows]
    assert numbers == sorted(numbers)
    assert all(TIME.fullmatch(row["time"]) and len(row["transaction_id"]) == 128 for row in rows)


def test_one_transaction_says_what_it_did_where_and_its_outcome(played):
    [_, take, _] = played.request("GET", "/api/chain/transactions?game=web-chain").json()["transactions"]
    answer = played.request("GET", f"/api/chain/transaction?id={take['transaction_id'][:16]}...")
    assert answer.status == 200
    shown = answer.json()
    assert {key: shown[key] for key in ("transaction_id", "words", "signer_name", "block_num", "time", "status")} == {
        "transaction_id": take["transaction_id"], "words": "xo take web-chain 5", "signer_name": "alice",
        "block_num": take["block_num"], "time": take["time"], "status": "COMMITTED",
    }  # fmt: skip
    assert shown["outcome"] == "committed (valid); it changed 1 address of state"
    assert shown["state_changes"] == [{"address": game_address("web-chain"), "type": "SET"}]
    must_not = ["GET ", "POST ", "HTTP", "P2-NEXT", "----X----", "payload"]
    text = " ".join(str(value) for value in shown.values())
    assert [word for word in must_not if word in text] == []


@pytest.mark.parametrize(
    ("query", "status", "said"),
    [
        ("/api/chain/transaction?id=zz", 400, "'zz' is not a transaction id"),
        ("/api/chain/transaction?id=abcdef0123", 404, "no committed transaction on this chain has the id 'abcdef0123'"),
        ("/api/chain/transaction", 400, "name the transaction"),
        ("/api/chain/transactions?game=a,b", 400, "','"),
        ("/api/chain/transactions?channel=xyz", 400, "a channel is named by its id: 64 lowercase hex digits"),
        ("/api/chain/transactions?game=g&rps=g", 400, "name one game or channel"),
    ],
)
def test_what_names_nothing_is_refused_in_words(played, query, status, said):
    answer = played.request("GET", query)
    assert answer.status == status
    assert said in answer.json()["error"]["message"]


def test_a_channel_or_rps_game_nobody_played_has_no_transactions(played):
    assert played.request("GET", f"/api/chain/transactions?channel={'ab' * 32}").json()["transactions"] == []
    listed = played.request("GET", "/api/chain/transactions?rps=never-played").json()
    assert (listed["shown"], listed["transactions"]) == ("rps game 'never-played'", [])


def test_the_page_says_each_family_s_transactions_as_xo_chain_does():
    """The page may not import a command (tests/packaging/test_boundaries.py): its readers are held equal here."""
    assert explorer.FAMILY_WORDS == chain.FAMILY_WORDS
