"""Blocks as a Sawtooth validator makes them: header fields, ids, genesis.

A block id is the node key's signature over the serialized BlockHeader, exactly as
for transactions and batches, so any Sawtooth tool can check our blocks' signatures.
The consensus field carries what a real dev-mode network writes: ``Genesis`` in block 0
and ``Devmode`` afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence

from xo_core.protobuf.batch_pb2 import Batch
from xo_core.protobuf.block_pb2 import Block, BlockHeader
from xo_core.signing import Signer

NULL_BLOCK_ID = "0000000000000000"
GENESIS_CONSENSUS = b"Genesis"
DEVMODE_CONSENSUS = b"Devmode"


def build_block(
    signer: Signer,
    *,
    block_num: int,
    previous_block_id: str,
    batches: Sequence[Batch],
    state_root: str,
    consensus: bytes = DEVMODE_CONSENSUS,
) -> Block:
    """Sign a block holding ``batches`` whose execution led to ``state_root``."""
    header = BlockHeader(
        block_num=block_num,
        previous_block_id=previous_block_id,
        signer_public_key=signer.public_key,
        batch_ids=[batch.header_signature for batch in batches],
        consensus=consensus,
        state_root_hash=state_root,
    ).SerializeToString()
    return Block(header=header, header_signature=signer.sign(header), batches=batches)


def genesis_block(signer: Signer, state_root: str) -> Block:
    """Block 0: no batches (this ledger has no on-chain settings), the null parent."""
    return build_block(
        signer,
        block_num=0,
        previous_block_id=NULL_BLOCK_ID,
        batches=(),
        state_root=state_root,
        consensus=GENESIS_CONSENSUS,
    )


def header_of(block: Block) -> BlockHeader:
    return BlockHeader.FromString(block.header)
