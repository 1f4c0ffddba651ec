"""The chain's clock as a client reads it: the newest BlockInfo timestamp, read as the processor reads it.

A claim is judged by the processor at the time of the block it lands in
(:func:`tp_runtime.clock.current_time`); a client reads the same BlockInfo entries
through the REST API to tell a player when a claim can succeed.
"""

from __future__ import annotations

import time
from typing import NamedTuple

from sawtooth_sdk.processor.exceptions import InternalError

from client_core.rest import RestClient
from client_core.runner import warn
from tp_runtime.clock import current_time


class _Entry(NamedTuple):
    address: str
    data: bytes


class _RestState:
    """The REST API's state as the clock reads a processor's context (:func:`tp_runtime.clock.current_time`)."""

    def __init__(self, client: RestClient) -> None:
        self._client = client

    def get_state(self, addresses: list[str]) -> list[_Entry]:
        return [_Entry(address, self._client.get_state(address) or b"") for address in addresses]


def chain_time(client: RestClient) -> int | None:
    """The timestamp of the newest BlockInfo in state, as the processor reads it; ``None`` on a network without."""
    try:
        return current_time(_RestState(client), "claim")
    except InternalError as error:
        warn("rps", f"the network's BlockInfo cannot be read: {error}; the local clock stands in for it")
        return int(time.time())


def claim_time(client: RestClient) -> int | None:
    """The time a claim submitted now will be judged at: ``None`` without BlockInfo, else no earlier than now.

    The newest BlockInfo in state describes the block before the newest one; the
    claim lands in a later block, whose BlockInfo is taken when that block starts. On
    a quiet chain that is much later than the newest timestamp in state, so the
    local clock, when it is ahead, is the better guess (a clock running ahead of the
    network's can only let through a claim the validator then refuses, with its reason).
    """
    chain = chain_time(client)
    return None if chain is None else max(chain, int(time.time()))
