"""A signed rps op: the header fields the rps specification requires."""

import hashlib

from rps_client.transactions import make_rps_transaction
from rps_tp.family import game_address
from rps_tp.ops import Commit
from rps_tp.payload import encode_payload, parse_payload
from tests.rps_tp.moments import committing
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_core.signing import Signer


def test_an_rps_transaction_header_has_the_fields_the_spec_requires():
    signer = Signer.generate()
    op = Commit("g1", committing(1), bytes(range(32)))

    transaction = make_rps_transaction(signer, op)

    header = TransactionHeader.FromString(transaction.header)
    assert (header.family_name, header.family_version) == ("rps", "2.0")
    assert list(header.inputs) == [
        game_address("g1"),
        "00b10c0100000000000000000000000000000000000000000000000000000000000000",
        "00b10c00",
    ]
    assert list(header.outputs) == [game_address("g1")]
    assert list(header.dependencies) == []
    assert header.signer_public_key == header.batcher_public_key == signer.public_key
    assert transaction.payload == encode_payload(op)
    assert parse_payload(transaction.payload) == op
    assert header.payload_sha512 == hashlib.sha512(transaction.payload).hexdigest()
    assert header.nonce
