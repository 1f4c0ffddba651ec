"""The validator envelope (``Message``) and the correlation ids that pair replies with requests."""

import itertools
import os
from collections.abc import Callable

from xo_core.protobuf.validator_pb2 import Message


def correlation_ids() -> Callable[[], str]:
    """Return a thread-safe source of ids unique to this process and this run.

    A random prefix keeps ids from two runs (or two processors behind one validator)
    apart; a counter is far cheaper than a UUID per request.
    """
    prefix = os.urandom(6).hex()
    counter = itertools.count(1)
    return lambda: f"{prefix}{next(counter):x}"


def envelope(message_type: int, correlation_id: str, content: bytes) -> bytes:
    """Serialise one frame for the validator's component endpoint."""
    return Message(message_type=message_type, correlation_id=correlation_id, content=content).SerializeToString()


def message_type_name(message_type: int) -> str:
    """The validator's name for a message type, or its number if it is not one we know."""
    try:
        return Message.MessageType.Name(message_type)
    except ValueError:
        return str(message_type)
