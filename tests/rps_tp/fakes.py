"""rps transactions as a validator sends them, and BlockInfo entries as the block_info family writes them.

For the family-agnostic fake context in ``tests/fake_context.py``.
"""

from rps_tp.family import FAMILY_NAME, FAMILY_VERSION, transaction_inputs, transaction_outputs
from rps_tp.ops import Op
from rps_tp.payload import encode_payload
from tests.fake_context import Event, FakeContext, StateEntry, public_key
from xo_core import block_info
from xo_core.protobuf.block_info_pb2 import BlockInfo, BlockInfoConfig
from xo_core.protobuf.processor_pb2 import TpProcessRequest
from xo_core.protobuf.transaction_pb2 import TransactionHeader

__all__ = ["Event", "FakeContext", "StateEntry", "block_info_entries", "public_key", "request"]


def request(
    payload: Op | bytes, signer: str, name: str = "g1", inputs: list[str] | None = None, version: str = FAMILY_VERSION
) -> TpProcessRequest:
    """A TpProcessRequest as a validator sends it, with the inputs and outputs the specification asks for.

    ``name`` is the game whose addresses are declared (an op's own name when an op is given).
    """
    if not isinstance(payload, bytes):
        name = payload.name
        payload = encode_payload(payload)
    header = TransactionHeader(
        family_name=FAMILY_NAME,
        family_version=version,
        signer_public_key=signer,
        inputs=transaction_inputs(name) if inputs is None else inputs,
        outputs=transaction_outputs(name),
    )
    return TpProcessRequest(header=header, payload=payload, signature="00" * 64, context_id="ctx")


def block_info_entries(timestamp: int, block_num: int = 41, oldest: int | None = None) -> dict[str, bytes]:
    """The BlockInfo config and newest block description as the block_info processor stores them."""
    config = BlockInfoConfig(
        latest_block=block_num,
        oldest_block=block_num if oldest is None else oldest,
        target_count=block_info.DEFAULT_TARGET_COUNT,
        sync_tolerance=block_info.DEFAULT_SYNC_TOLERANCE,
    )
    block = BlockInfo(
        block_num=block_num,
        previous_block_id="ab" * 64,
        signer_public_key=public_key(99),
        header_signature="cd" * 64,
        timestamp=timestamp,
    )
    return {
        block_info.CONFIG_ADDRESS: config.SerializeToString(),
        block_info.block_address(block_num): block.SerializeToString(),
    }
