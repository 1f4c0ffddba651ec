"""What `xo chain` says of a chips transaction: decoded with the family's own codec, keys by their names,
a channel by the first digits of its id, which an open's words work out as the chain does."""

import pytest

from chips_client import tournament_transactions as ttx
from chips_client import transactions
from chips_client.chain_words import words
from chips_tp.channel import Fixed, channel_id
from chips_tp.payload import parse_payload
from chips_tp.tournament_ops import Create
from client_core.blocks import ChainTransaction
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_core.signing import Signer

ALICE, BOB = Signer.generate(), Signer.generate()
NAMES = {ALICE.public_key: "alice", BOB.public_key: "bob"}
FIXED = Fixed((ALICE.public_key, BOB.public_key), "xo", 10, (50, 40), 3600, 7)
SHORT = channel_id(FIXED).hex()[:8]


def on_chain(transaction) -> ChainTransaction:
    signer = TransactionHeader.FromString(transaction.header).signer_public_key
    return ChainTransaction(transaction.header_signature, "chips", "1.0", signer, (), (), transaction.payload)


@pytest.mark.parametrize(
    ("made", "said"),
    [
        (transactions.issue(ALICE, BOB.public_key, 1500), "chips issue 1,500 to bob"),
        (transactions.transfer(BOB, ALICE.public_key, 5), "chips transfer 5 to alice"),
        (transactions.open_channel(ALICE, FIXED), f"chips open {SHORT}: xo with bob, stake 10, deposits 50 and 40"),
        (transactions.join(BOB, FIXED, 50), f"chips join {SHORT}"),
        (transactions.cancel(ALICE, FIXED), f"chips cancel {SHORT}"),
        (transactions.finalize(BOB, FIXED), f"chips finalize {SHORT}"),
        (
            ttx.create(ALICE, Create("bob's cup", "xo", "swiss", 3, 10, (2, 8), 60, 180, (60, 40))),
            'chips create tournament "bob\'s cup": xo swiss of 3 rounds, buy-in 10, 2..8 players, prizes 60/40',
        ),
        (
            ttx.create(ALICE, Create("rps cup", "rps", "knockout", 0, 10, (2, 8), 60, 180, (100,), first_to=3)),
            "chips create tournament 'rps cup': rps first to 3 knockout, buy-in 10, 2..8 players, prizes 100",
        ),
        (ttx.enter(BOB, "cup", 10), "chips enter tournament 'cup', buy-in 10"),
        (ttx.advance(BOB, "cup"), "chips advance tournament 'cup'"),
    ],
    ids=[
        "issue",
        "transfer",
        "open",
        "join",
        "cancel",
        "finalize",
        "create",
        "create rps",
        "enter",
        "advance",
    ],  # the keys, and so the words, are new each run
)
def test_each_op_in_words(made, said):
    assert parse_payload(made.payload)  # what the processor reads
    assert words(on_chain(made), lambda key: NAMES.get(key, key[:8])) == said


def test_a_key_without_a_name_is_said_as_the_namer_gives_it():
    stranger = Signer.generate().public_key
    said = words(on_chain(transactions.issue(ALICE, stranger, 1)), lambda key: NAMES.get(key, key[:6] + "..."))
    assert said == f"chips issue 1 to {stranger[:6]}..."


def test_a_payload_the_codec_refuses_is_said_so_not_raised():
    transaction = ChainTransaction("t" * 128, "chips", "1.0", ALICE.public_key, (), (), b"not cbor")
    assert words(transaction, str).startswith("chips: a payload its codec refuses (")
