"""Submit-time batch validation: every fault a validator refuses, named in the message."""

import re

import pytest

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch, make_transaction
from xo_core.protobuf.batch_pb2 import Batch, BatchHeader
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.signing import Signer
from xo_devnet.validation import InvalidBatch, short_id, validate_batches

ALICE = Signer.from_hex("a1" * 32)
BOB = Signer.from_hex("b0" * 32)


def xo_batch(signer: Signer = ALICE, *names: str) -> Batch:
    return make_batch(signer, [make_xo_transaction(signer, name, "create") for name in names or ("g1",)])


def resign_batch(batch: Batch, signer: Signer, header: BatchHeader) -> Batch:
    header_bytes = header.SerializeToString()
    return Batch(header=header_bytes, header_signature=signer.sign(header_bytes), transactions=batch.transactions)


def test_well_formed_batches_pass():
    validate_batches([xo_batch(ALICE, "a", "b"), xo_batch(BOB, "c")])


def test_a_batch_signed_by_someone_else_than_its_signer_key_is_refused():
    batch = xo_batch()
    forged = Batch(header=batch.header, header_signature=BOB.sign(batch.header), transactions=batch.transactions)
    with pytest.raises(InvalidBatch, match=r"batch 0 .*header_signature is not a valid signature"):
        validate_batches([forged])


def test_a_tampered_transaction_header_breaks_its_signature():
    batch = xo_batch()
    header = TransactionHeader()
    header.ParseFromString(batch.transactions[0].header)
    header.nonce = "changed"
    tampered = Transaction(
        header=header.SerializeToString(),
        header_signature=batch.transactions[0].header_signature,
        payload=batch.transactions[0].payload,
    )
    rebuilt = Batch(header=batch.header, header_signature=batch.header_signature, transactions=[tampered])
    with pytest.raises(InvalidBatch, match=r"batch 0 .*, transaction 0 .*not a valid signature"):
        validate_batches([rebuilt])


def test_a_payload_that_does_not_match_its_hash_is_refused():
    batch = xo_batch()
    swapped = Transaction()
    swapped.CopyFrom(batch.transactions[0])
    swapped.payload = b"g1,take,5"
    rebuilt = Batch(header=batch.header, header_signature=batch.header_signature, transactions=[swapped])
    with pytest.raises(InvalidBatch, match="payload_sha512 does not match"):
        validate_batches([rebuilt])


def test_the_batcher_key_must_be_the_batch_signer():
    transaction = make_transaction(
        ALICE,
        b"g1,create,",
        family_name="xo",
        family_version="1.0",
        inputs=[],
        outputs=[],
        batcher_public_key=BOB.public_key,
    )
    batch = make_batch(ALICE, [transaction])
    with pytest.raises(InvalidBatch, match=f"batcher_public_key {BOB.public_key[:16]}.* is not the batch signer"):
        validate_batches([batch])


def test_transaction_ids_must_list_the_transactions_in_order():
    batch = xo_batch(ALICE, "a", "b")
    header = BatchHeader()
    header.ParseFromString(batch.header)
    header.transaction_ids.reverse()
    with pytest.raises(InvalidBatch, match="do not match the transactions it holds, in order"):
        validate_batches([resign_batch(batch, ALICE, header)])


def test_transaction_ids_must_not_name_missing_transactions():
    batch = xo_batch(ALICE, "a")
    header = BatchHeader()
    header.ParseFromString(batch.header)
    header.transaction_ids.append("ab" * 64)
    with pytest.raises(InvalidBatch, match="do not match"):
        validate_batches([resign_batch(batch, ALICE, header)])


def test_an_empty_batch_is_refused():
    header = BatchHeader(signer_public_key=ALICE.public_key).SerializeToString()
    with pytest.raises(InvalidBatch, match="holds no transactions"):
        validate_batches([Batch(header=header, header_signature=ALICE.sign(header))])


def test_the_same_transaction_twice_in_one_batch_is_refused():
    transaction = make_xo_transaction(ALICE, "g1", "create")
    batch = make_batch(ALICE, [transaction, transaction])
    with pytest.raises(InvalidBatch, match=f"transaction {short_id(transaction.header_signature)} appears twice"):
        validate_batches([batch])


def test_the_same_transaction_in_two_batches_of_one_list_is_refused():
    transaction = make_xo_transaction(ALICE, "g1", "create")
    with pytest.raises(InvalidBatch, match=r"batch 1 .*appears twice"):
        validate_batches([make_batch(ALICE, [transaction]), make_batch(ALICE, [transaction])])


def test_the_same_batch_twice_in_one_list_is_refused():
    batch = xo_batch()
    with pytest.raises(InvalidBatch, match="the same batch appears twice"):
        validate_batches([batch, batch])


@pytest.mark.parametrize(
    ("public_key", "fault"),
    [
        ("", "is not a compressed secp256k1 public key"),
        ("04" + "ab" * 32, "is not a compressed secp256k1 public key"),
        (ALICE.public_key.upper(), "is not a compressed secp256k1 public key"),
    ],
)
def test_signer_keys_must_be_compressed_lowercase_hex(public_key, fault):
    header = BatchHeader(signer_public_key=public_key, transaction_ids=[]).SerializeToString()
    batch = Batch(header=header, header_signature=ALICE.sign(header))
    with pytest.raises(InvalidBatch, match=fault):
        validate_batches([batch])


def test_an_uppercase_signature_is_refused_because_ids_are_lowercase():
    batch = xo_batch()
    shouting = Batch(
        header=batch.header, header_signature=batch.header_signature.upper(), transactions=batch.transactions
    )
    with pytest.raises(InvalidBatch, match="header_signature is not 128 lowercase hex characters"):
        validate_batches([shouting])


def test_a_header_that_is_not_a_header_is_refused():
    batch = Batch(header=b"\xff\xff\xff", header_signature="ab" * 64)
    with pytest.raises(InvalidBatch, match="header is not a BatchHeader"):
        validate_batches([batch])


def test_messages_point_at_the_faulty_batch_by_position_and_id():
    good = xo_batch(ALICE, "a")
    bad = xo_batch(BOB, "b")
    bad.transactions[0].payload = b"other"
    with pytest.raises(InvalidBatch) as raised:
        validate_batches([good, bad])
    assert str(raised.value).startswith(f"batch 1 ({short_id(bad.header_signature)}), transaction 0 (")


def test_a_dependency_on_a_later_transaction_of_the_same_batch_is_refused_because_it_could_never_run():
    later = make_xo_transaction(ALICE, "later", "create")
    earlier = make_transaction(ALICE, b"x", family_name="xo", family_version="1.0", inputs=[], outputs=[],
                               dependencies=[later.header_signature])
    expected = rf"transaction 0 .*depends on transaction {re.escape(short_id(later.header_signature))}"
    with pytest.raises(InvalidBatch, match=expected):
        validate_batches([make_batch(ALICE, [earlier, later])])
    validate_batches([make_batch(ALICE, [later, earlier])])
