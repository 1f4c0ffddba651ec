"""The clock: the newest BlockInfo's timestamp, none without BlockInfo, and what a corrupt or unlisted one gives."""

import pytest
from sawtooth_sdk.processor.exceptions import InternalError, InvalidTransaction

from tests.rps_tp.fakes import FakeContext, block_info_entries
from tp_runtime.clock import current_time
from xo_core import block_info
from xo_core.protobuf.block_info_pb2 import BlockInfo, BlockInfoConfig

EVERYTHING = ["00b10c"]


def test_the_time_is_the_timestamp_of_the_block_the_config_names_as_newest():
    state = block_info_entries(timestamp=1_700_000_000, block_num=41)
    state.update({block_info.block_address(40): BlockInfo(block_num=40, timestamp=1_600_000_000).SerializeToString()})
    assert current_time(FakeContext(state, EVERYTHING), "claim") == 1_700_000_000


def test_a_network_without_block_info_has_no_time():
    assert current_time(FakeContext({}, EVERYTHING), "claim") is None


def test_only_the_config_and_the_newest_block_are_read():
    class Recording(FakeContext):
        read: list[str]

        def get_state(self, addresses, timeout=None):
            self.read = [*getattr(self, "read", []), *addresses]
            return super().get_state(addresses, timeout)

    context = Recording(block_info_entries(timestamp=5, block_num=7), EVERYTHING)
    assert current_time(context, "claim") == 5
    assert context.read == [block_info.CONFIG_ADDRESS, block_info.block_address(7)]


@pytest.mark.parametrize("op_name", ["commit", "claim"])
def test_a_transaction_that_did_not_list_block_info_is_told_what_to_list(op_name):
    context = FakeContext(block_info_entries(timestamp=5), ["c56a0e"])
    with pytest.raises(InvalidTransaction) as raised:
        current_time(context, op_name)
    assert str(raised.value) == (
        f"a {op_name} reads the time from BlockInfo, so its transaction must list "
        f"{block_info.CONFIG_ADDRESS} and 00b10c00 in its inputs"
    )


def test_listing_the_config_but_not_the_blocks_is_refused_too():
    context = FakeContext(block_info_entries(timestamp=5), [block_info.CONFIG_ADDRESS])
    with pytest.raises(InvalidTransaction, match="must list"):
        current_time(context, "reveal")


@pytest.mark.parametrize(
    ("state", "message"),
    [
        (
            {block_info.CONFIG_ADDRESS: b"\xff\xff"},
            f"the BlockInfo config at {block_info.CONFIG_ADDRESS} does not parse",
        ),
        (
            {block_info.CONFIG_ADDRESS: BlockInfoConfig(latest_block=9).SerializeToString()},
            f"the BlockInfo config names block 9 as the newest, but {block_info.block_address(9)} does not describe it",
        ),
        (
            {
                block_info.CONFIG_ADDRESS: BlockInfoConfig(latest_block=9).SerializeToString(),
                block_info.block_address(9): BlockInfo(block_num=8, timestamp=5).SerializeToString(),
            },
            f"the BlockInfo config names block 9 as the newest, but {block_info.block_address(9)} does not describe it",
        ),
        (
            {
                block_info.CONFIG_ADDRESS: BlockInfoConfig(latest_block=9).SerializeToString(),
                block_info.block_address(9): b"\x0a\x05",
            },
            f"the BlockInfo at {block_info.block_address(9)} does not parse",
        ),
    ],
)
def test_corrupt_block_info_is_an_internal_error(state, message):
    with pytest.raises(InternalError) as raised:
        current_time(FakeContext(state, EVERYTHING), "claim")
    assert str(raised.value) == message
