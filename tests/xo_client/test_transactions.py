"""A signed XO move: the header fields the XO specification requires."""

import hashlib

from xo_client.transactions import make_xo_transaction
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_core.signing import Signer
from xo_tp.family import game_address


def test_an_xo_transaction_header_has_the_fields_the_spec_requires():
    signer = Signer.generate()
    transaction = make_xo_transaction(signer, "g1", "take", 5)
    header = TransactionHeader.FromString(transaction.header)
    assert (header.family_name, header.family_version) == ("xo", "1.0")
    assert list(header.inputs) == list(header.outputs) == [game_address("g1")]
    assert list(header.dependencies) == []
    assert header.signer_public_key == header.batcher_public_key == signer.public_key
    assert header.payload_sha512 == hashlib.sha512(b"g1,take,5").hexdigest()
    assert transaction.payload == b"g1,take,5"
    assert header.nonce


def test_a_move_can_name_another_key_as_its_batcher_and_stays_signed_by_its_player():
    player, batcher = Signer.generate(), Signer.generate()
    transaction = make_xo_transaction(player, "g1", "take", 1, batcher_public_key=batcher.public_key)
    header = TransactionHeader.FromString(transaction.header)
    assert header.signer_public_key == player.public_key
    assert header.batcher_public_key == batcher.public_key
