"""BlockInfo, built into the ledger: the batch that opens every block, and the block_info processor that stores it.

A Sawtooth validator configured with ``sawtooth.validator.batch_injectors=block_info``
puts one batch first in every block it publishes: a ``block_info`` 1.0 transaction,
signed by the validator's key, whose ``BlockInfoTxn`` payload describes the previous
block (number, id, the id before it, its signer) with a timestamp the validator takes
as it starts the new block. The block_info transaction processor checks it against
what is in state and stores it: the description at ``00b10c00`` + the block number,
the ``BlockInfoConfig`` (newest and oldest block described, how many to keep, the sync
tolerance) at ``00b10c01`` + zeros, and it deletes descriptions older than the newest
minus ``target_count`` (256). This module makes the same batch, byte for byte in its
encodings (:mod:`xo_core.block_info`, ``block_info.proto``), and applies the same
checks and writes, so a processor that reads the time from BlockInfo (rps) works on
xo-devnet and on a real network alike.

Why built in rather than a sidecar processor: the block loop must never cut a block
without its BlockInfo first, and must never wait for a processor to do so. A sidecar
can be missing, slow or restarting; then either blocks would lack their BlockInfo, or
every block (XO play included) would stall behind it. Applied in the ledger's own
process, the BlockInfo is done before any other batch of the block starts, at no cost
in processes or start-up time. The processor protocol is exercised by ``xo-tp`` and
``rps-tp`` already.

One check of the upstream processor is left out on purpose: that a timestamp is not
ahead of the processor's clock by more than the sync tolerance. It protects a
validating peer from a publisher's clock; here the publisher and the processor are one
process with one clock. The injector instead never lets the timestamp go backwards
(it keeps the previous one while the clock is behind it), which the processor checks.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from google.protobuf.message import DecodeError

from xo_core import block_info
from xo_core.batches import make_batch
from xo_core.protobuf.batch_pb2 import Batch
from xo_core.protobuf.block_info_pb2 import BlockInfo, BlockInfoConfig, BlockInfoTxn
from xo_core.protobuf.block_pb2 import BlockHeader
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.signing import Signer
from xo_devnet.chain import NULL_BLOCK_ID
from xo_devnet.context import TxnContext

FAMILY = (block_info.FAMILY_NAME, block_info.FAMILY_VERSION)
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


def newest_timestamp(read: Callable[[str], bytes | None]) -> int | None:
    """The timestamp of the newest BlockInfo in the state ``read`` reads; None if there is none or it does not read.

    The injector starts from it, so that time on the chain never goes backwards.
    """
    try:
        config = BlockInfoConfig.FromString(read(block_info.CONFIG_ADDRESS) or b"")
        data = read(block_info.block_address(config.latest_block))
        return BlockInfo.FromString(data).timestamp if data else None
    except (DecodeError, ValueError):
        return None


def apply(payload: bytes, context: TxnContext) -> None:
    """Store one BlockInfo as the block_info processor does; BlockInfoRefused says why it cannot be stored."""
    try:
        transaction = BlockInfoTxn.FromString(payload)
    except DecodeError as error:
        raise BlockInfoRefused(f"the payload is not a BlockInfoTxn: {error}") from None
    block = transaction.block
    _check_fields(block)
    config = _read_config(context)
    deletes: list[str] = []
    if config is None:
        config = BlockInfoConfig(
            latest_block=block.block_num,
            oldest_block=block.block_num,
            target_count=transaction.target_count or block_info.DEFAULT_TARGET_COUNT,
            sync_tolerance=transaction.sync_tolerance or block_info.DEFAULT_SYNC_TOLERANCE,
        )
    else:
        if transaction.target_count:
            config.target_count = transaction.target_count
        if transaction.sync_tolerance:
            config.sync_tolerance = transaction.sync_tolerance
        _check_sequence(block, config, context)
        config.latest_block = block.block_num
        while config.latest_block - config.oldest_block > config.target_count:
            deletes.append(block_info.block_address(config.oldest_block))
            config.oldest_block += 1
    if deletes:
        context.delete(deletes)
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


def _read_config(context: TxnContext) -> BlockInfoConfig | None:
    [(_, data)] = context.get([block_info.CONFIG_ADDRESS])
    if not data:
        return None
    try:
        return BlockInfoConfig.FromString(data)
    except DecodeError:
        raise BlockInfoRefused(f"the BlockInfo config at {block_info.CONFIG_ADDRESS} does not parse") from None


def _check_sequence(block: BlockInfo, config: BlockInfoConfig, context: TxnContext) -> None:
    """The new block follows the newest one described: next number, its id as the parent, no earlier timestamp."""
    if block.block_num != config.latest_block + 1:
        raise BlockInfoRefused(
            f"block number must be one more than the newest described: got {block.block_num},"
            f" expected {config.latest_block + 1}"
        )
    address = block_info.block_address(config.latest_block)
    [(_, data)] = context.get([address])
    try:
        previous = BlockInfo.FromString(data)
    except DecodeError:
        raise BlockInfoRefused(f"the BlockInfo at {address} does not parse") from None
    if not data or previous.block_num != config.latest_block:
        raise BlockInfoRefused(f"the config names block {config.latest_block} as the newest, but {address} lacks it")
    if block.previous_block_id != previous.header_signature:
        raise BlockInfoRefused(
            f"the previous block id must be the newest described block's id: got {block.previous_block_id},"
            f" expected {previous.header_signature}"
        )
    if block.timestamp < previous.timestamp:
        raise BlockInfoRefused(
            f"the timestamp must not be before the previous block's: got {block.timestamp},"
            f" expected at least {previous.timestamp}"
        )
