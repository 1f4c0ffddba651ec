"""The BlockInfo a block opens with: the batch as Sawtooth's injector makes it, and the block_info processor's rules.

Field for field against what Sawtooth's BlockInfo injector and block_info processor do
(``validator/sawtooth_validator/journal/block_info_injector.py`` and
``families/block_info`` in sawtooth-core): the header, the payload, the checks of the
sequence and what is stored and pruned.
"""

import hashlib
import re

import pytest

from xo_core import block_info
from xo_core.protobuf.batch_pb2 import BatchHeader
from xo_core.protobuf.block_info_pb2 import BlockInfo, BlockInfoConfig, BlockInfoTxn
from xo_core.protobuf.block_pb2 import BlockHeader
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_core.signing import Signer, verify
from xo_devnet.block_info import DECLARED, BlockInfoRefused, apply, injected_batch, newest_timestamp
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
    context.restrict_writes([block_info.NAMESPACE], "block_info 1.0")
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
    assert newest_timestamp(state.get) == 1_700_000_000


def test_each_next_blockinfo_follows_the_newest_one_and_old_ones_are_pruned_beyond_the_target_count():
    state: dict[str, bytes] = {}
    store(state, payload(10, 1000, target_count=2))
    for number in range(11, 16):
        store(state, payload(number, 1000 + number))

    assert config_in(state) == BlockInfoConfig(latest_block=15, oldest_block=13, target_count=2, sync_tolerance=300)
    kept = sorted(address for address in state if address != CONFIG)
    assert kept == [block_info.block_address(number) for number in (13, 14, 15)]
    assert newest_timestamp(state.get) == 1015


def test_the_target_count_and_sync_tolerance_a_transaction_sets_are_kept():
    state: dict[str, bytes] = {}
    store(state, payload(0, 1000))
    store(state, payload(1, 1001, target_count=5, sync_tolerance=60))
    assert (config_in(state).target_count, config_in(state).sync_tolerance) == (5, 60)
    store(state, payload(2, 1002))
    assert (config_in(state).target_count, config_in(state).sync_tolerance) == (5, 60)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (payload(9, 2000), "block number must be one more than the newest described: got 9, expected 5"),
        (payload(5, 999), "the timestamp must not be before the previous block's: got 999, expected at least 1000"),
        (
            BlockInfoTxn(block=BlockInfo(block_num=5, previous_block_id="ab" * 64, signer_public_key=NODE.public_key,
                                         header_signature=block_id(5), timestamp=2000)).SerializeToString(),
            f"the previous block id must be the newest described block's id: got {'ab' * 64}, expected {block_id(4)}",
        ),
        (payload(5, 0), "invalid timestamp 0"),
        (b"\xff\xff", "the payload is not a BlockInfoTxn"),
        (
            BlockInfoTxn(block=BlockInfo(block_num=5, previous_block_id=block_id(4), signer_public_key="nope",
                                         header_signature=block_id(5), timestamp=2000)).SerializeToString(),
            "invalid signer public key 'nope'",
        ),
    ],
    ids=["skips-a-block", "goes-back-in-time", "another-parent", "no-time", "not-a-payload", "bad-signer"],
)
def test_a_blockinfo_that_does_not_follow_the_newest_one_is_refused_and_changes_nothing(data, reason):
    state: dict[str, bytes] = {}
    store(state, payload(4, 1000))
    before = dict(state)

    with pytest.raises(BlockInfoRefused, match="^" + re.escape(reason)):
        store(state, data)

    assert state == before


def test_blockinfo_state_that_does_not_read_is_refused_and_has_no_newest_timestamp():
    assert newest_timestamp({}.get) is None
    corrupt = {CONFIG: b"garbage"}
    assert newest_timestamp(corrupt.get) is None
    with pytest.raises(BlockInfoRefused, match=r"the BlockInfo config at 00b10c01\d+ does not parse"):
        store(corrupt, payload(1, 1000))
    lost = {CONFIG: BlockInfoConfig(latest_block=3, oldest_block=0, target_count=256).SerializeToString()}
    with pytest.raises(BlockInfoRefused, match=r"the config names block 3 as the newest, but 00b10c00\d+3 lacks it"):
        store(lost, payload(4, 1000))
