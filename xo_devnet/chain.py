"""Blocks as a Sawtooth validator makes them: header bytes, ids, genesis, and this node's chain.

A block id is the node key's signature over the serialized BlockHeader, exactly as
for transactions and batches, so any Sawtooth tool can check our blocks' signatures.
The consensus field carries what a real dev-mode network writes: ``Genesis`` in block 0
and ``Devmode`` afterwards. The node key lives in storage, written in the same
transaction as genesis, so a chain and the key that signs it never part.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence

from xo_core.protobuf.batch_pb2 import Batch
from xo_core.protobuf.block_pb2 import Block, BlockHeader
from xo_core.signing import InvalidKey, Signer
from xo_devnet.merkle import EMPTY_NODE, EMPTY_ROOT, MerkleTree, NodeKey
from xo_devnet.storage import CommitRecord, Storage

LOG = logging.getLogger(__name__)

NULL_BLOCK_ID = "0000000000000000"
GENESIS_CONSENSUS = b"Genesis"
DEVMODE_CONSENSUS = b"Devmode"
_NODE_KEY = "node_private_key"


class ChainError(Exception):
    """The stored chain cannot be continued by this node (no key, an unusable key, someone else's head)."""


def block_header(
    *,
    block_num: int,
    previous_block_id: str,
    signer_public_key: str,
    batch_ids: Sequence[str],
    state_root: str,
    consensus: bytes,
) -> bytes:
    """The serialized BlockHeader a validator signs for these fields."""
    return BlockHeader(
        block_num=block_num,
        previous_block_id=previous_block_id,
        signer_public_key=signer_public_key,
        batch_ids=batch_ids,
        consensus=consensus,
        state_root_hash=state_root,
    ).SerializeToString()


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
    header = block_header(
        block_num=block_num,
        previous_block_id=previous_block_id,
        signer_public_key=signer.public_key,
        batch_ids=[batch.header_signature for batch in batches],
        state_root=state_root,
        consensus=consensus,
    )
    return Block(header=header, header_signature=signer.sign(header), batches=batches)


def genesis_block(signer: Signer, state_root: str) -> Block:
    """Block 0: no batches (what its state holds is written directly: :func:`open_chain`), the null parent."""
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


def open_chain(storage: Storage, genesis_state: Mapping[str, bytes] | None = None) -> tuple[Signer, Block]:
    """The node key and head block, creating both (atomically) on first use; ChainError if unusable.

    A new chain's genesis state holds ``genesis_state`` (address -> data), as a Sawtooth
    genesis block's batches would leave it; an existing chain keeps its own.
    """
    head = storage.head_block()
    key = storage.meta(_NODE_KEY)
    if head is None:
        signer = Signer.from_hex(key.decode()) if key is not None else Signer.generate()
        nodes = {("", EMPTY_ROOT): EMPTY_NODE}
        root, written = MerkleTree(_Nodes(nodes)).update(EMPTY_ROOT, dict(genesis_state or {}))
        genesis = genesis_block(signer, root)
        storage.commit(
            CommitRecord(
                block=genesis,
                block_num=0,
                nodes={**nodes, **written},
                meta={_NODE_KEY: signer.private_key_hex.encode()},
            )
        )
        LOG.info("created genesis block %s", genesis.header_signature[:16])
        return signer, genesis
    if key is None:
        raise ChainError("the ledger database has blocks but no node key; it is not an xo-devnet ledger")
    try:
        signer = Signer.from_hex(key.decode("ascii", "replace"))
    except InvalidKey as error:
        raise ChainError(f"the stored node key is unusable: {error}") from None
    if header_of(head).signer_public_key != signer.public_key:
        raise ChainError("the head block was not signed by this ledger's node key")
    return signer, head


class _Nodes:
    """The Merkle nodes of a genesis state being built, before any storage holds them."""

    def __init__(self, nodes: dict[NodeKey, bytes]) -> None:
        self._nodes = nodes

    def node_bytes(self, key: NodeKey) -> bytes | None:
        return self._nodes.get(key)

    def node_bytes_many(self, keys: Iterable[NodeKey]) -> dict[NodeKey, bytes]:
        return {key: self._nodes[key] for key in keys if key in self._nodes}
