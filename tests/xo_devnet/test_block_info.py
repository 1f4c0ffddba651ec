"""The BlockInfo a block opens with: the batch as Sawtooth's injector makes it, and the block_info processor's rules.

Field for field against what Sawtooth's BlockInfo injector and block_info processor do
(``validator/sawtooth_validator/journal/block_info_injector.py`` and
``families/block_info`` in sawtooth-core): the header, the payload, what is stored and
pruned; and where we differ on purpose, that nothing in BlockInfo state can refuse the
next block.
"""

import hashlib
import re

import pytest

from xo_core import block_info
from xo_core.batches import make_batch, make_transaction
from xo_core.protobuf.batch_pb2 import Batch, BatchHeader
from xo_core.protobuf.block_info_pb2 import BlockInfo, BlockInfoConfig, BlockInfoTxn
from xo_core.protobuf.block_pb2 import Block, BlockHeader
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_core.signing import Signer, verify
from xo_devnet.block_info import DECLARED, BlockInfoRefused, apply, injected_batch, timestamp_in
from xo_devnet.chain import NULL_BLOCK_ID
from xo_devnet.context import TxnContext

NODE = Signer.generate()
CONFIG = block_info.CONFIG_ADDRESS


def block_id(number: int) -> str:
    return hashlib.sha512(f"block {number}".encode()).hexdigest()


def header_of_block(number: int) -> BlockHeader:
    """The header of block ``number`` of a made-up chain whose ids are ``block_id(n)``."""
    parent = NULL_BLOCK_ID if number == 0 else block_id(number - 1)
    return BlockHeader(block_num=number, previous_block_id=parent, signer_public_key=NODE.public_key)


def payload(number: int, timestamp: int, **settings: int) -> bytes:
    """The BlockInfoTxn opening block ``number + 1`` of the made-up chain."""
    batch = injected_batch(NODE, header_of_block(number), block_id(number), timestamp)
    if not settings:
        return batch.transactions[0].payload
    transaction = BlockInfoTxn.FromString(batch.transactions[0].payload)
    for field, value in settings.items():
        setattr(transaction, field, value)
    return transaction.SerializeToString()


def store(state: dict[str, bytes], data: bytes) -> TxnContext:
    """Apply one BlockInfo to ``state`` through a context declaring what the injector declares."""
    context = TxnContext(DECLARED, DECLARED, state.get)
    context.restrict_writes([block_info.NAMESPACE], "block_info", "1.0")
    apply(data, context)
    for address, value in context.writes.items():
        if value is None:
            del state[address]
        else:
            state[address] = value
    return context


def config_in(state: dict[str, bytes]) -> BlockInfoConfig:
    return BlockInfoConfig.FromString(state[CONFIG])


def test_the_injected_batch_is_what_sawtooths_injector_makes():
    previous = header_of_block(7)
    batch = injected_batch(NODE, previous, block_id(7), 1_700_000_123)

    [transaction] = batch.transactions
    header = TransactionHeader.FromString(transaction.header)
    assert (header.family_name, header.family_version) == ("block_info", "1.0")
    assert list(header.inputs) == list(header.outputs) == [CONFIG, "00b10c00"]
    assert header.signer_public_key == header.batcher_public_key == NODE.public_key
    assert (header.nonce, list(header.dependencies)) == ("", [])
    assert header.payload_sha512 == hashlib.sha512(transaction.payload).hexdigest()
    assert verify(NODE.public_key, transaction.header_signature, transaction.header)
    batch_header = BatchHeader.FromString(batch.header)
    assert batch_header.signer_public_key == NODE.public_key
    assert list(batch_header.transaction_ids) == [transaction.header_signature]
    assert verify(NODE.public_key, batch.header_signature, batch.header)
    described = BlockInfoTxn.FromString(transaction.payload)
    assert described == BlockInfoTxn(
        block=BlockInfo(
            block_num=7,
            previous_block_id=block_id(6),
            signer_public_key=NODE.public_key,
            header_signature=block_id(7),
            timestamp=1_700_000_123,
        )
    )
    assert (described.target_count, described.sync_tolerance) == (0, 0)


def test_the_first_blockinfo_starts_the_config_with_sawtoothes_defaults():
    state: dict[str, bytes] = {}

    store(state, payload(0, 1_700_000_000))

    assert config_in(state) == BlockInfoConfig(latest_block=0, oldest_block=0, target_count=256, sync_tolerance=300)
    stored = BlockInfo.FromString(state[block_info.block_address(0)])
    assert (stored.block_num, stored.previous_block_id, stored.timestamp) == (0, NULL_BLOCK_ID, 1_700_000_000)
    assert set(state) == {CONFIG, block_info.block_address(0)}


def test_each_next_blockinfo_is_the_newest_and_old_ones_are_pruned_beyond_the_target_count():
    state: dict[str, bytes] = {}
    for number in range(300):
        store(state, payload(number, 1000 + number))

    assert config_in(state) == BlockInfoConfig(latest_block=299, oldest_block=43, target_count=256, sync_tolerance=300)
    kept = sorted(address for address in state if address != CONFIG)
    assert kept == [block_info.block_address(number) for number in range(43, 300)]


def test_the_target_count_and_sync_tolerance_of_a_transaction_are_in_its_config():
    state: dict[str, bytes] = {}
    store(state, payload(10, 1000, target_count=2, sync_tolerance=60))
    assert config_in(state) == BlockInfoConfig(latest_block=10, oldest_block=8, target_count=2, sync_tolerance=60)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (payload(5, 0), "invalid timestamp 0"),
        (b"\xff\xff", "the payload is not a BlockInfoTxn"),
        (
            BlockInfoTxn(block=BlockInfo(block_num=5, previous_block_id=block_id(4), signer_public_key="nope",
                                         header_signature=block_id(5), timestamp=2000)).SerializeToString(),
            "invalid signer public key 'nope'",
        ),
    ],
    ids=["no-time", "not-a-payload", "bad-signer"],
)
def test_a_blockinfo_that_is_malformed_is_refused_and_changes_nothing(data, reason):
    state: dict[str, bytes] = {}
    store(state, payload(4, 1000))
    before = dict(state)

    with pytest.raises(BlockInfoRefused, match="^" + re.escape(reason)):
        store(state, data)

    assert state == before


FORGED = BlockInfo(block_num=1_000_000, previous_block_id=block_id(1), signer_public_key=NODE.public_key,
                   header_signature=block_id(2), timestamp=10**10)


@pytest.mark.parametrize(
    "state",
    [
        {CONFIG: b"garbage"},
        {CONFIG: BlockInfoConfig(latest_block=3, oldest_block=0, target_count=256).SerializeToString()},
        {
            CONFIG: BlockInfoConfig(latest_block=1_000_000, oldest_block=0, target_count=1).SerializeToString(),
            block_info.block_address(1_000_000): FORGED.SerializeToString(),
        },
    ],
    ids=["config-does-not-parse", "newest-is-missing", "forged-future-block"],
)
def test_whatever_blockinfo_state_holds_the_next_blockinfo_is_stored_and_becomes_the_newest(state):
    store(state, payload(4, 1000))

    assert config_in(state) == BlockInfoConfig(latest_block=4, oldest_block=0, target_count=256, sync_tolerance=300)
    assert BlockInfo.FromString(state[block_info.block_address(4)]).timestamp == 1000


def test_the_timestamp_to_start_from_is_read_from_the_block_not_from_state():
    opener = injected_batch(NODE, header_of_block(6), block_id(6), 1_700_000_321)
    assert timestamp_in(Block(batches=[opener, batch_of_nothing()])) == 1_700_000_321
    assert timestamp_in(Block(batches=[batch_of_nothing()])) is None
    assert timestamp_in(Block()) is None


def batch_of_nothing() -> Batch:
    """A batch of one transaction of another family, first in no block of ours."""
    transaction = make_transaction(NODE, b"", family_name="kv", family_version="1.0", inputs=[], outputs=[])
    return make_batch(NODE, [transaction])
