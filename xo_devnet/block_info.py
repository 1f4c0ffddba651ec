"""BlockInfo, built into the ledger: the batch that opens every block, and the block_info processor that stores it.

A Sawtooth validator configured with ``sawtooth.validator.batch_injectors=block_info``
puts one batch first in every block it publishes: a ``block_info`` 1.0 transaction,
signed by the validator's key, whose ``BlockInfoTxn`` payload describes the previous
block (number, id, the id before it, its signer) with a timestamp the validator takes
as it starts the new block. The block_info transaction processor stores it: the
description at ``00b10c00`` + the block number, the ``BlockInfoConfig`` (newest and
oldest block described, how many to keep, the sync tolerance) at ``00b10c01`` + zeros,
and it deletes descriptions older than the newest minus ``target_count`` (256). This
module makes the same batch, byte for byte in its encodings (:mod:`xo_core.block_info`,
``block_info.proto``), and writes the same entries, so a processor that reads the time
from BlockInfo (rps) works on xo-devnet and on a real network alike.

Why built in rather than a sidecar processor: the block loop must never cut a block
without its BlockInfo first, and must never wait for a processor to do so. A sidecar
can be missing, slow or restarting; then either blocks would lack their BlockInfo, or
every block (XO play included) would stall behind it. Applied in the ledger's own
process, the BlockInfo is done before any other batch of the block starts, at no cost
in processes or start-up time. The processor protocol is exercised by ``xo-tp`` and
``rps-tp`` already.

Where we differ from the upstream processor, on purpose: it checks each new BlockInfo
against the newest one in state (next number, that block's id as the parent, no earlier
timestamp, a timestamp not ahead of its clock by more than the sync tolerance). Here the
publisher and the processor are one process: the ledger makes the payload from its own
chain (the previous block's header, and a timestamp never before that of the BlockInfo
the previous block opened with), so those checks hold by construction, and reading them
back from state would only let whatever is in state refuse a block, and the block loop
would stop for good. Nobody else may write BlockInfo's namespace (``context``), but the
writer does not rely on that: it writes what the chain says, the config included.
"""

from __future__ import annotations

import hashlib
import re

from google.protobuf.message import DecodeError

from xo_core import block_info
from xo_core.batches import make_batch
from xo_core.protobuf.batch_pb2 import Batch
from xo_core.protobuf.block_info_pb2 import BlockInfo, BlockInfoConfig, BlockInfoTxn
from xo_core.protobuf.block_pb2 import Block, BlockHeader
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.signing import Signer
from xo_devnet.chain import NULL_BLOCK_ID
from xo_devnet.context import TxnContext

DECLARED = [block_info.CONFIG_ADDRESS, block_info.BLOCK_NAMESPACE]
"""The inputs and the outputs of the injected transaction, as Sawtooth's injector declares them."""

_ID = re.compile(r"[0-9a-f]{128}")
_KEY = re.compile(r"[0-9a-f]{66}")


class BlockInfoRefused(Exception):
    """The built-in processor refused a BlockInfo transaction: a bug, or BlockInfo state that is corrupt."""


def injected_batch(signer: Signer, previous: BlockHeader, previous_id: str, timestamp: int) -> Batch:
    """The batch that opens the block after ``previous`` (whose id is ``previous_id``), as Sawtooth's injector makes it.

    One ``block_info`` transaction signed by the node key, no nonce and no dependencies,
    in a batch signed by the same key.
    """
    payload = BlockInfoTxn(
        block=BlockInfo(
            block_num=previous.block_num,
            previous_block_id=previous.previous_block_id,
            signer_public_key=previous.signer_public_key,
            header_signature=previous_id,
            timestamp=timestamp,
        )
    ).SerializeToString()
    header = TransactionHeader(
        family_name=block_info.FAMILY_NAME,
        family_version=block_info.FAMILY_VERSION,
        inputs=DECLARED,
        outputs=DECLARED,
        signer_public_key=signer.public_key,
        batcher_public_key=signer.public_key,
        payload_sha512=hashlib.sha512(payload).hexdigest(),
    ).SerializeToString()
    transaction = Transaction(header=header, header_signature=signer.sign(header), payload=payload)
    return make_batch(signer, [transaction])


def timestamp_in(block: Block) -> int | None:
    """The timestamp of the BlockInfo ``block`` opens with; None for a block without one (genesis).

    The injector starts from it, so that time on the chain never goes backwards. It is
    read from the chain, which only the ledger writes, never from state.
    """
    if not block.batches or len(block.batches[0].transactions) != 1:
        return None
    transaction = block.batches[0].transactions[0]
    try:
        if TransactionHeader.FromString(transaction.header).family_name != block_info.FAMILY_NAME:
            return None
        return BlockInfoTxn.FromString(transaction.payload).block.timestamp
    except DecodeError:
        return None


def apply(payload: bytes, context: TxnContext) -> None:
    """Store one BlockInfo, and the config naming it the newest; BlockInfoRefused says why it cannot be stored.

    Everything written follows from the transaction, which the ledger makes from its own
    chain: nothing already in BlockInfo state is read, so no entry there, however it got
    there, can refuse a block (the upstream processor checks the new one against the
    newest it stored). The description that falls out of the kept window is deleted.
    """
    try:
        transaction = BlockInfoTxn.FromString(payload)
    except DecodeError as error:
        raise BlockInfoRefused(f"the payload is not a BlockInfoTxn: {error}") from None
    block = transaction.block
    _check_fields(block)
    target_count = transaction.target_count or block_info.DEFAULT_TARGET_COUNT
    config = BlockInfoConfig(
        latest_block=block.block_num,
        oldest_block=max(0, block.block_num - target_count),
        target_count=target_count,
        sync_tolerance=transaction.sync_tolerance or block_info.DEFAULT_SYNC_TOLERANCE,
    )
    if config.oldest_block > 0:
        dropped = block_info.block_address(config.oldest_block - 1)
        [(_, data)] = context.get([dropped])
        if data:
            context.delete([dropped])
    context.set(
        [
            (block_info.CONFIG_ADDRESS, config.SerializeToString()),
            (block_info.block_address(block.block_num), block.SerializeToString()),
        ]
    )


def _check_fields(block: BlockInfo) -> None:
    if not (_ID.fullmatch(block.previous_block_id) or block.previous_block_id == NULL_BLOCK_ID):
        raise BlockInfoRefused(f"invalid previous block id {block.previous_block_id!r}")
    if not _KEY.fullmatch(block.signer_public_key):
        raise BlockInfoRefused(f"invalid signer public key {block.signer_public_key!r}")
    if not _ID.fullmatch(block.header_signature):
        raise BlockInfoRefused(f"invalid header signature {block.header_signature!r}")
    if block.timestamp <= 0:
        raise BlockInfoRefused(f"invalid timestamp {block.timestamp}")
