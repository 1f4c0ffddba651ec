"""BlockInfo's and the settings' namespaces belong to the ledger: a rogue processor that claims them writes nothing.

The attack of issue 23: a processor registered for a family the operator allowed
(``evil``), claiming ``00b10c`` and ``000000`` among its namespaces, forges the BlockInfo
of block 1,000,000 with a timestamp 10^7 s ahead and a settings entry. Its writes are
refused (AUTHORIZATION_ERROR, so its transaction is INVALID with the reason), the chain's
clock stays the ledger's, and blocks keep coming. The processor is a real one: our
``tp_runtime`` serving a handler, as any family's processor would.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import threading
from collections.abc import AsyncIterator

from tests.xo_devnet.harness import (
    SIGNER,
    address,
    batch_of,
    commit,
    connected,
    head_value,
    kv_batch,
    run,
    running_ledger,
)
from tp_runtime import TransactionProcessor
from tp_runtime.handler_api import ProcessRequest, StateContext
from xo_core import block_info
from xo_core.batches import make_transaction
from xo_core.protobuf.block_info_pb2 import BlockInfo, BlockInfoConfig
from xo_devnet.chain import header_of
from xo_devnet.ledger import Ledger

NOW = 1_700_000_000
EVIL_NAMESPACE = "e711e7"
SETTING = "000000" + hashlib.sha256(b"sawtooth.validator.transaction_families").hexdigest()[:64]
FORGED_BLOCK = 1_000_000


def forged_clock() -> dict[str, bytes]:
    """What the attack wrote: a BlockInfo for block 1,000,000, 10^7 s ahead, and a config naming it the newest."""
    forged = BlockInfo(
        block_num=FORGED_BLOCK, previous_block_id="ab" * 64, signer_public_key=SIGNER.public_key,
        header_signature="cd" * 64, timestamp=NOW + 10**7,
    )  # fmt: skip
    config = BlockInfoConfig(latest_block=FORGED_BLOCK, oldest_block=FORGED_BLOCK, target_count=256)
    return {
        block_info.block_address(FORGED_BLOCK): forged.SerializeToString(),
        block_info.CONFIG_ADDRESS: config.SerializeToString(),
    }


class RogueHandler:
    """Writes what its payload names: ``clock`` (forged BlockInfo), ``settings``, or ``own`` (its own namespace)."""

    family_name = "evil"
    family_versions = ("1.0",)
    namespaces = (block_info.NAMESPACE, "000000", EVIL_NAMESPACE)

    def apply(self, transaction: ProcessRequest, context: StateContext) -> None:
        target = transaction.payload.decode()
        writes = {
            "clock": forged_clock(),
            "settings": {SETTING: b"evil:1.0"},
            "own": {EVIL_NAMESPACE + "0" * 64: b"fine"},
        }[target]
        context.set_state(writes)  # refused: the SDK's AuthorizationException, which makes it INVALID


@contextlib.asynccontextmanager
async def rogue_processor(ledger: Ledger) -> AsyncIterator[TransactionProcessor]:
    processor = TransactionProcessor(ledger.component_endpoint, request_timeout=5.0)
    processor.add_handler(RogueHandler())
    thread = threading.Thread(target=processor.start, name="rogue-tp", daemon=True)
    thread.start()
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while ("evil", "1.0") not in ledger.processors():
            assert loop.time() < deadline, "the rogue processor did not register"
            await asyncio.sleep(0.05)
        yield processor
    finally:
        processor.stop()
        await asyncio.to_thread(thread.join, 10)


def rogue_batch(target: str):
    outputs = {"clock": [block_info.NAMESPACE], "settings": ["000000"], "own": [EVIL_NAMESPACE]}[target]
    txn = make_transaction(
        SIGNER, target.encode(), family_name="evil", family_version="1.0", inputs=outputs, outputs=outputs
    )
    return batch_of(txn)


CLAIMS = [("clock", "00b10c", "block_info"), ("settings", "000000", "sawtooth_settings")]


def test_a_rogue_processor_cannot_write_blockinfo_or_settings_and_blocks_keep_coming(caplog):
    caplog.set_level(logging.INFO, logger="xo_devnet.context_requests")

    async def scenario():
        families = frozenset({("evil", "1.0"), ("kv", "1.0")})
        async with (
            running_ledger(families=families, clock=lambda: NOW) as ledger,
            connected(ledger),
            rogue_processor(ledger),
        ):
            assert await commit(ledger, rogue_batch("own")) == ["COMMITTED"]
            for target, namespace, owner in CLAIMS:
                batch = rogue_batch(target)
                await ledger.submit([batch])
                [status] = await ledger.wait_for_batches([batch.header_signature], 20)
                assert status.status == "INVALID", target
                [reason] = status.invalid_transactions
                assert "unauthorized address" in reason.message and namespace in reason.message
                assert f"the namespace {namespace} belongs to the ledger ({owner}); evil 1.0 may not" in caplog.text

            head = header_of(ledger.chain_head()).block_num
            for number in range(3):
                assert await commit(ledger, kv_batch(set={address(number): "after"})) == ["COMMITTED"]
            assert header_of(ledger.chain_head()).block_num == head + 3
            config = BlockInfoConfig.FromString(head_value(ledger, block_info.CONFIG_ADDRESS))
            assert config.latest_block == head + 2
            newest = BlockInfo.FromString(head_value(ledger, block_info.block_address(config.latest_block)))
            assert newest.timestamp == NOW
            assert head_value(ledger, block_info.block_address(FORGED_BLOCK)) is None
            assert head_value(ledger, SETTING) is None
            assert ledger.failure is None

    run(scenario)
