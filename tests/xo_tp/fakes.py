"""XO transactions as a validator sends them, for the family-agnostic fake context in ``tests/fake_context.py``."""

from tests.fake_context import Event, FakeContext, StateEntry, public_key
from xo_core.protobuf.processor_pb2 import TpProcessRequest
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_tp.family import game_address

__all__ = ["Event", "FakeContext", "StateEntry", "public_key", "request"]


def request(payload: bytes | str, signer: str, name: str | None = None) -> TpProcessRequest:
    """A TpProcessRequest as a validator sends it: inputs/outputs are the game's address.

    ``name`` defaults to the payload's first field, so the declared address matches the game.
    """
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    if name is None:
        name = payload.split(b",", 1)[0].decode("utf-8", "replace")
    address = game_address(name)
    header = TransactionHeader(
        family_name="xo", family_version="1.0", signer_public_key=signer, inputs=[address], outputs=[address]
    )
    return TpProcessRequest(header=header, payload=payload, signature="00" * 64, context_id="ctx")
