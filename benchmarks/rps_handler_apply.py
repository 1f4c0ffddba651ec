"""CPU cost of ``RpsTransactionHandler.apply`` alone, without the validator protocol.

Plays many whole games (create, join, two readies, two commitments, two reveals: first to
1 point, Alice's rock against Bob's scissors) against a minimal dict-backed context that
holds a BlockInfo, and prints one JSON line: transactions, CPU microseconds per
transaction, and transactions per CPU second.

    python benchmarks/rps_handler_apply.py [--games N]
"""

import argparse
import json
import time
from typing import NamedTuple

from rps_tp.commitment import commitment
from rps_tp.family import FAMILY_VERSION, transaction_inputs, transaction_outputs
from rps_tp.game import COMMIT_PHASE, DEFAULT_SETTINGS, REVEAL_PHASE, SETUP_PHASE, Moment
from rps_tp.handler import RpsTransactionHandler
from rps_tp.ops import Commit, Create, Join, Op, Ready, Reveal
from rps_tp.payload import encode_payload
from xo_core import block_info
from xo_core.protobuf.block_info_pb2 import BlockInfo, BlockInfoConfig
from xo_core.protobuf.processor_pb2 import TpProcessRequest
from xo_core.protobuf.transaction_pb2 import TransactionHeader

ALICE, BOB = "02" + "1" * 64, "03" + "2" * 64
SALT_A, SALT_B = bytes(range(32)), bytes(range(32, 64))


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


#: The moments of the game's ops: before play (the create joins its host), then round 1's two phases.
LOBBY = Moment(0, SETUP_PHASE)
COMMITS = Moment(1, COMMIT_PHASE)
REVEALS = Moment(1, REVEAL_PHASE)


def one_game(name: str) -> list[tuple[Op, str]]:
    return [
        (Create(name), ALICE),
        (Join(name, LOBBY), BOB),
        (Ready(name, LOBBY, DEFAULT_SETTINGS), ALICE),
        (Ready(name, LOBBY, DEFAULT_SETTINGS), BOB),
        (Commit(name, COMMITS, commitment(name, 1, ALICE, "rock", SALT_A)), ALICE),
        (Commit(name, COMMITS, commitment(name, 1, BOB, "scissors", SALT_B)), BOB),
        (Reveal(name, REVEALS, "rock", SALT_A), ALICE),
        (Reveal(name, REVEALS, "scissors", SALT_B), BOB),
    ]


def requests(games: int) -> list[TpProcessRequest]:
    """Every transaction of ``games`` whole games, built up front so only ``apply`` is timed."""
    built = []
    for number in range(games):
        name = f"bench-{number}"
        for op, signer in one_game(name):
            header = TransactionHeader(
                signer_public_key=signer,
                family_version=FAMILY_VERSION,
                inputs=transaction_inputs(name),
                outputs=transaction_outputs(name),
            )
            built.append(TpProcessRequest(header=header, payload=encode_payload(op), context_id="c"))
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2500, help="whole games to play (8 transactions each)")
    parser.add_argument("--smoke", action="store_true", help="20 games: checks it still runs")
    args = parser.parse_args()
    if args.smoke:
        args.games = 20
    handler = RpsTransactionHandler()
    context = DictContext(
        {
            block_info.CONFIG_ADDRESS: BlockInfoConfig(latest_block=7).SerializeToString(),
            block_info.block_address(7): BlockInfo(block_num=7, timestamp=1_700_000_000).SerializeToString(),
        }
    )
    batch = requests(args.games)
    started = time.process_time()
    for request in batch:
        handler.apply(request, context)
    cpu = time.process_time() - started
    assert context.events == len(batch)
    assert len(context.state) == args.games + 2
    print(
        json.dumps(
            {
                "benchmark": "rps_handler_apply",
                "transactions": len(batch),
                "cpu_us_per_txn": round(cpu / len(batch) * 1e6, 2),
                "txns_per_cpu_second": round(len(batch) / cpu),
            }
        )
    )


if __name__ == "__main__":
    main()
