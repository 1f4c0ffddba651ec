"""Transactions, batches and batch lists: header fields, hashes, ids and signatures a validator accepts."""

import base64
import hashlib

from sawtooth_signing import create_context
from sawtooth_signing.secp256k1 import Secp256k1PublicKey

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch, make_batch_list, make_transaction
from xo_core.protobuf.batch_pb2 import Batch, BatchHeader, BatchList
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.signing import Signer, verify
from xo_tp.family import game_address

SAWTOOTH = create_context("secp256k1")

# A create of game "cap1795268788" as committed on a real Sawtooth 1.0.5 network by the reference
# client (captured in GET /blocks?limit=1): its signatures must verify over the header bytes that
# our messages serialise from the same fields, or the wire formats differ.
REAL_KEY = "036633d1a9da4963368bf71e7f4402d2003ab6e963e579cbca1c08505827a15900"
REAL_ADDRESS = "5b734992524b8b717e0815535ba514c1b8f13daec6f94f72523a5c2f1439aa6f4b84ed"
REAL_PAYLOAD = base64.b64decode("Y2FwMTc5NTI2ODc4OCxjcmVhdGUs")
REAL_TXN_ID = (
    "8457dcb747dcf5cf2bedbe07939a7fde57ffe99a3439320ba839a3decf3b301b"
    "098e0396af8ca914181022f42a53ad49146de35593072a3008c48628df1dcdf9"
)
REAL_BATCH_ID = (
    "a95b725494f4c21312d6f3857fc6de6b50d83670924c422350039ea51d8628db"
    "3404eb8db55df538a5f37928af0a6982377a4dbfaf62e06da2cec9974bbd3efa"
)


def sawtooth_verifies(signature, message, public_key):
    return SAWTOOTH.verify(signature, message, Secp256k1PublicKey.from_hex(public_key))


def test_the_transaction_id_is_its_header_signature_and_verifies_with_sawtooth_signing():
    signer = Signer.generate()
    transaction = make_xo_transaction(signer, "g1", "create")
    assert sawtooth_verifies(transaction.header_signature, transaction.header, signer.public_key)
    assert len(transaction.header_signature) == 128


def test_nonces_make_identical_moves_distinct_transactions():
    signer = Signer.generate()
    first, second = (make_xo_transaction(signer, "g1", "delete") for _ in range(2))
    assert first.header_signature != second.header_signature
    assert TransactionHeader.FromString(first.header).nonce != TransactionHeader.FromString(second.header).nonce


def test_a_given_nonce_makes_the_transaction_reproducible():
    signer = Signer.generate()
    first, second = (make_xo_transaction(signer, "g1", "create", nonce="n1") for _ in range(2))
    assert first.SerializeToString() == second.SerializeToString()


def test_a_batch_lists_its_transactions_by_id_and_is_signed_by_their_batcher():
    signer = Signer.generate()
    transactions = [make_xo_transaction(signer, "g1", "create"), make_xo_transaction(signer, "g1", "take", 1)]
    batch = make_batch(signer, transactions)
    header = BatchHeader.FromString(batch.header)
    assert header.signer_public_key == signer.public_key
    assert list(header.transaction_ids) == [t.header_signature for t in transactions]
    assert list(batch.transactions) == transactions
    assert sawtooth_verifies(batch.header_signature, batch.header, signer.public_key)


def test_a_batch_list_is_the_serialised_post_body():
    signer = Signer.generate()
    batches = [make_batch(signer, [make_xo_transaction(signer, f"g{i}", "create")]) for i in range(3)]
    body = make_batch_list(batches)
    assert isinstance(body, bytes)
    assert [b.header_signature for b in BatchList.FromString(body).batches] == [b.header_signature for b in batches]


def test_transactions_of_other_families_can_be_built_too():
    signer, batcher = Signer.generate(), Signer.generate()
    transaction = make_transaction(
        signer,
        b"\x01\x02",
        family_name="intkey",
        family_version="1.0",
        inputs=["1cf126"],
        outputs=["1cf126"],
        dependencies=["d" * 128],
        batcher_public_key=batcher.public_key,
    )
    header = TransactionHeader.FromString(transaction.header)
    assert (header.family_name, list(header.dependencies)) == ("intkey", ["d" * 128])
    assert header.batcher_public_key == batcher.public_key
    assert header.signer_public_key == signer.public_key


def test_our_messages_reproduce_the_header_bytes_a_real_sawtooth_client_signed():
    transaction_header = TransactionHeader(
        batcher_public_key=REAL_KEY,
        family_name="xo",
        family_version="1.0",
        inputs=[REAL_ADDRESS],
        outputs=[REAL_ADDRESS],
        nonce="0x1.ac0682d061046p+30",
        payload_sha512=hashlib.sha512(REAL_PAYLOAD).hexdigest(),
        signer_public_key=REAL_KEY,
    ).SerializeToString()
    assert REAL_PAYLOAD == b"cap1795268788,create,"
    assert game_address("cap1795268788") == REAL_ADDRESS
    assert verify(REAL_KEY, REAL_TXN_ID, transaction_header)
    assert sawtooth_verifies(REAL_TXN_ID, transaction_header, REAL_KEY)
    batch_header = BatchHeader(signer_public_key=REAL_KEY, transaction_ids=[REAL_TXN_ID]).SerializeToString()
    assert verify(REAL_KEY, REAL_BATCH_ID, batch_header)


def test_field_numbers_match_sawtooths_wire_format():
    numbers = {
        Transaction: {"header": 1, "header_signature": 2, "payload": 3},
        Batch: {"header": 1, "header_signature": 2, "transactions": 3, "trace": 4},
        BatchHeader: {"signer_public_key": 1, "transaction_ids": 2},
        BatchList: {"batches": 1},
        TransactionHeader: {
            "batcher_public_key": 1,
            "dependencies": 2,
            "family_name": 3,
            "family_version": 4,
            "inputs": 5,
            "nonce": 6,
            "outputs": 7,
            "payload_sha512": 9,
            "signer_public_key": 10,
        },
    }
    for message, fields in numbers.items():
        assert {field.name: field.number for field in message.DESCRIPTOR.fields} == fields
