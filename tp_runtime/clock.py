"""The time on the chain, as every family that needs it reads it: the timestamp of the newest BlockInfo in state.

At the start of every block the validator's BlockInfo injector writes a description of
the previous block with a timestamp taken as the new block starts, so the newest one
in state says roughly when the block being built began: a transaction in a block of its
own (an rps claim or a chips finalize on an idle chain, say) sees a fresh time. The timestamp is the same for
every validator that replays the block, which a processor's own clock never is.
"""

from google.protobuf.message import DecodeError
from sawtooth_sdk.processor.exceptions import AuthorizationException, InternalError, InvalidTransaction

from tp_runtime.handler_api import StateContext, read_entry
from xo_core import block_info
from xo_core.protobuf.block_info_pb2 import BlockInfo, BlockInfoConfig


def current_time(context: StateContext, op_name: str) -> int | None:
    """The timestamp (Unix seconds) of the newest BlockInfo in state, or ``None`` if there is none (see
    :func:`newest_block`)."""
    block = newest_block(context, op_name)
    return None if block is None else block.timestamp


def newest_block(context: StateContext, op_name: str) -> BlockInfo | None:
    """The newest BlockInfo in state (the block before the one being built), or ``None`` if there is none.

    ``None`` means the network keeps no BlockInfo (no block_info processor, or no
    injector): the config entry is absent. A config that names a block whose
    description is missing, or entries that do not parse, mean a corrupt chain:
    ``InternalError``. A transaction that did not list the BlockInfo addresses in its
    inputs is refused (``InvalidTransaction``, naming ``op_name``) with what to list.
    """
    config_data = _read(context, block_info.CONFIG_ADDRESS, op_name)
    if not config_data:
        return None
    config = BlockInfoConfig()
    try:
        config.ParseFromString(config_data)
    except DecodeError:
        raise InternalError(f"the BlockInfo config at {block_info.CONFIG_ADDRESS} does not parse") from None
    address = block_info.block_address(config.latest_block)
    block_data = _read(context, address, op_name)
    block = BlockInfo()
    try:
        block.ParseFromString(block_data)
    except DecodeError:
        raise InternalError(f"the BlockInfo at {address} does not parse") from None
    if not block_data or block.block_num != config.latest_block:
        raise InternalError(
            f"the BlockInfo config names block {config.latest_block} as the newest, but {address} does not describe it"
        )
    return block


def _read(context: StateContext, address: str, op_name: str) -> bytes:
    try:
        return read_entry(context, address)
    except AuthorizationException:
        raise InvalidTransaction(
            f"a {op_name} reads the time from BlockInfo, so its transaction must list "
            f"{block_info.CONFIG_ADDRESS} and {block_info.BLOCK_NAMESPACE} in its inputs"
        ) from None
