"""Committed blocks' events read back from storage, one block at a time: what catch-up and get requests read.

The receipts in storage are the ones the block was committed with (one source of
truth, no second copy of the events): a block's are found by its transactions' ids,
in block order.
"""

from __future__ import annotations

import logging

from xo_core.protobuf.transaction_receipt_pb2 import TransactionReceipt
from xo_devnet.events.blocks import BlockEvents
from xo_devnet.storage import Storage

LOG = logging.getLogger(__name__)


class StoredHistory:
    """``History`` over a ledger's storage."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def block_events(self, block_num: int) -> BlockEvents | None:
        block = self._storage.block_by_num(block_num)
        if block is None:
            return None
        txn_ids = [txn.header_signature for batch in block.batches for txn in batch.transactions]
        stored = self._storage.receipts(txn_ids)
        receipts = []
        for txn_id in txn_ids:
            data = stored.get(txn_id)
            if data is None:
                LOG.warning("transaction %s of block %d has no stored receipt", txn_id[:16], block_num)
                continue
            receipts.append(TransactionReceipt.FromString(data))
        return BlockEvents.of(block, receipts)

    def block_num_of(self, block_id: str) -> int | None:
        header = self._storage.block_header(block_id)
        return None if header is None else header.block_num
