"""CPU cost of ``XoTransactionHandler.apply`` alone, without the validator protocol.

Plays many whole games (create + nine takes to a tie) against a minimal dict-backed
context and prints one JSON line: transactions, CPU microseconds per transaction, and
transactions per CPU second. It bounds the handler's share of the processor's budget
(< 0.3 ms CPU per transaction, protocol included).

    python benchmarks/handler_apply.py [--games N]
"""

import argparse
import json
import time
from typing import NamedTuple

from xo_core.protobuf.processor_pb2 import TpProcessRequest
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_tp.family import game_address
from xo_tp.handler import XoTransactionHandler
from xo_tp.payload import encode_payload

PLAYERS = ("02" + "1" * 64, "03" + "2" * 64)
MOVES = (5, 1, 3, 7, 4, 6, 9, 2, 8)


class Entry(NamedTuple):
    address: str
    data: bytes


class DictContext:
    """The SDK Context calls the handler makes, over one shared dict, with nothing checked."""

    def __init__(self, state: dict[str, bytes]) -> None:
        self.state = state
        self.events = 0

    def get_state(self, addresses: list[str], timeout: float | None = None) -> list[Entry]:
        return [Entry(a, self.state[a]) for a in addresses if a in self.state]

    def set_state(self, entries: dict[str, bytes], timeout: float | None = None) -> list[str]:
        self.state.update(entries)
        return list(entries)

    def delete_state(self, addresses: list[str], timeout: float | None = None) -> list[str]:
        return [a for a in addresses if self.state.pop(a, None) is not None]

    def add_event(
        self, event_type: str, attributes: object = None, data: bytes | None = None, timeout: float | None = None
    ) -> None:
        self.events += 1


def requests(games: int) -> list[TpProcessRequest]:
    """Every transaction of ``games`` whole games, built up front so only ``apply`` is timed."""
    built = []
    for number in range(games):
        name = f"bench-{number}"
        address = game_address(name)
        steps = [(encode_payload(name, "create"), PLAYERS[0])]
        steps += [(encode_payload(name, "take", space), PLAYERS[turn % 2]) for turn, space in enumerate(MOVES)]
        for payload, signer in steps:
            header = TransactionHeader(signer_public_key=signer, inputs=[address], outputs=[address])
            built.append(TpProcessRequest(header=header, payload=payload, context_id="c"))
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="whole games to play (10 transactions each)")
    parser.add_argument("--smoke", action="store_true", help="20 games: checks it still runs")
    args = parser.parse_args()
    if args.smoke:
        args.games = 20
    handler = XoTransactionHandler()
    context = DictContext({})
    batch = requests(args.games)
    started = time.process_time()
    for request in batch:
        handler.apply(request, context)
    cpu = time.process_time() - started
    assert context.events == len(batch)
    assert all(data.split(b",")[2] == b"TIE" for data in context.state.values())
    print(
        json.dumps(
            {
                "benchmark": "handler_apply",
                "transactions": len(batch),
                "cpu_us_per_txn": round(cpu / len(batch) * 1e6, 2),
                "txns_per_cpu_second": round(len(batch) / cpu),
            }
        )
    )


if __name__ == "__main__":
    main()
