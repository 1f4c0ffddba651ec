"""Blocks are built and signed exactly as a Sawtooth validator builds them."""

import pytest

from xo_core.protobuf.batch_pb2 import Batch
from xo_core.signing import Signer, verify
from xo_devnet.chain import DEVMODE_CONSENSUS, NULL_BLOCK_ID, block_header, build_block, genesis_block, header_of
from xo_devnet.merkle import EMPTY_ROOT

# Blocks published by real Sawtooth networks: (header fields, header_signature).
# The Sawtooth docs' genesis block, and blocks 0 and 3 of the dev-mode network our REST captures come from.
REAL_BLOCKS = [
    (
        {
            "block_num": 0,
            "previous_block_id": NULL_BLOCK_ID,
            "signer_public_key": "03061436bef428626d11c17782f9e9bd8bea55ce767eb7349f633d4bfea4dd4ae9",
            "batch_ids": [],
            "consensus": b"Genesis",
            "state_root_hash": EMPTY_ROOT,
        },
        "119f076815af8b2c024b59998e2fab29b6ae6edf3e28b19de91302bd13662e6e43784263626b72b1c1ac120a491142ca25393d55ac7b9f3c3bf15d1fdeefeb3b",
    ),
    (
        {
            "block_num": 0,
            "previous_block_id": NULL_BLOCK_ID,
            "signer_public_key": "0355350115b60748c62dd8c1fd6b27a1ce977fa64ca53e45fdee99d3898371ab2f",
            "batch_ids": [
                "838b3f12a8f49d067a32ab9e9adb1ad7134c0012176b3d4c522b6703db500f7c0c33a69f171db6c9de5b4a0b5dcd56687cc46544407ad63c8da626a69d8487c5"
            ],
            "consensus": b"Genesis",
            "state_root_hash": "f5a5d63937d5a2e07d4caab8b0e64c89e8e86042de03ec74a5c9d668f63318a1",
        },
        "226a45730e17e282f2b994be4a734bd25657f6a386e638fe1c343943f279920c2978b96165928512b32767d27d975db608c1b28261641db614f8209c63a543e6",
    ),
    (
        {
            "block_num": 3,
            "previous_block_id": (
                "8d95e98310076f7ee5ffa81b7c7cdbd8901938a11996416b4f670a025ed46278"
                "684c2aef62134fa328843df5f007959d9f6ee5e656d5beb55821208011c1398e"
            ),
            "signer_public_key": "0355350115b60748c62dd8c1fd6b27a1ce977fa64ca53e45fdee99d3898371ab2f",
            "batch_ids": [
                "a95b725494f4c21312d6f3857fc6de6b50d83670924c422350039ea51d8628db3404eb8db55df538a5f37928af0a6982377a4dbfaf62e06da2cec9974bbd3efa"
            ],
            "consensus": b"Devmode",
            "state_root_hash": "7b68a63f3ef9d3a1cdf4ae7e9ebf5c254f6646447ae88229aff163fcc41aba8a",
        },
        "3d0bf19440455cade1610ea254689ebeeeb18edb44902c019530d99899a07dbb054ba788725923891cda6b549f0310175369d65abd20a36782cbee6dd5448138",
    ),
]


def header_from(fields: dict, **changes) -> bytes:
    """Our header bytes for the captured fields (as a real block lists them), some changed."""
    fields = {**fields, **changes}
    return block_header(
        block_num=fields["block_num"],
        previous_block_id=fields["previous_block_id"],
        signer_public_key=fields["signer_public_key"],
        batch_ids=fields["batch_ids"],
        state_root=fields["state_root_hash"],
        consensus=fields["consensus"],
    )


@pytest.mark.parametrize(("fields", "block_id"), REAL_BLOCKS)
def test_our_header_bytes_are_what_real_validators_signed(fields, block_id):
    key = fields["signer_public_key"]
    assert verify(key, block_id, header_from(fields))
    assert not verify(key, block_id, header_from(fields, block_num=fields["block_num"] + 1))


def test_a_built_block_carries_exactly_the_header_a_validator_would_sign():
    signer = Signer.generate()
    batch = Batch(header_signature="ab" * 64)
    block = build_block(signer, block_num=7, previous_block_id="cd" * 64, batches=[batch], state_root="ef" * 32)
    assert block.header == block_header(
        block_num=7,
        previous_block_id="cd" * 64,
        signer_public_key=signer.public_key,
        batch_ids=[batch.header_signature],
        state_root="ef" * 32,
        consensus=DEVMODE_CONSENSUS,
    )
    assert list(block.batches) == [batch]


def test_a_block_id_is_the_node_keys_signature_over_its_header():
    signer = Signer.generate()
    genesis = genesis_block(signer, EMPTY_ROOT)
    block = build_block(
        signer, block_num=1, previous_block_id=genesis.header_signature, batches=[], state_root="ab" * 32
    )
    header = header_of(block)
    assert verify(signer.public_key, block.header_signature, block.header)
    assert header.block_num == 1
    assert header.previous_block_id == genesis.header_signature
    assert header.consensus == DEVMODE_CONSENSUS
    assert header.signer_public_key == signer.public_key
    assert header.state_root_hash == "ab" * 32


def test_genesis_is_block_zero_on_the_null_block():
    header = header_of(genesis_block(Signer.generate(), EMPTY_ROOT))
    assert (header.block_num, header.previous_block_id, header.consensus) == (0, "0000000000000000", b"Genesis")
    assert list(header.batch_ids) == []
