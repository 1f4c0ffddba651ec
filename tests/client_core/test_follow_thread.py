"""``client_core.follow_thread``: the chain follower on its own thread, against a real xo-devnet.

The command's thread only waits on a queue; blocks arrive in order, once each, while
it does; the error that ends following arrives the same way; stopping is prompt.
"""

from __future__ import annotations

import queue
import time

import pytest

from client_core.blocks import BlockChanges, BlockRef, ChainChanged
from client_core.follow_thread import FollowerThread
from tests.xo_cli.devnet_play import Table
from xo_devnet.spawn import DevnetProcess
from xo_tp.family import NAMESPACE, game_address


@pytest.fixture(scope="module")
def devnet(tmp_path_factory):
    with DevnetProcess(log_path=tmp_path_factory.mktemp("devnet") / "devnet.log") as running:
        yield running


@pytest.fixture(scope="module")
def table(devnet) -> Table:
    return Table(devnet.rest_url, devnet.key_dir)


def next_item(items: queue.Queue, seconds: float = 10.0):
    return items.get(timeout=seconds)


def test_blocks_arrive_in_order_once_each_while_the_caller_waits_on_its_queue(devnet, table):
    start = table.client.head_block().ref
    items: queue.Queue = queue.Queue()
    follower = FollowerThread(devnet.rest_url, [NAMESPACE], after=start, deliver=items.put).start()
    try:
        table.move("alice", "threaded", "create")
        table.takes("threaded", 5, 1)
        blocks: list[BlockChanges] = []
        while len([block for block in blocks if block.changes]) < 3:
            blocks.append(next_item(items))
        numbers = [block.block_num for block in blocks]
        assert numbers == list(range(start.block_num + 1, start.block_num + 1 + len(blocks)))
        assert {change.address for block in blocks for change in block.changes} == {game_address("threaded")}
        assert follower.cursor == blocks[-1].ref
    finally:
        stopped_at = time.monotonic()
        follower.stop()
    assert time.monotonic() - stopped_at < 2
    assert not follower.is_alive()
    table.move("alice", "threaded", "delete")
    time.sleep(0.2)
    assert items.empty(), "nothing is delivered once stopped"


def test_the_error_that_ends_following_is_handed_over_and_the_thread_ends(devnet):
    items: queue.Queue = queue.Queue()
    gone = BlockRef("ab" * 64, 999)
    follower = FollowerThread(devnet.rest_url, [NAMESPACE], after=gone, deliver=items.put).start()
    error = next_item(items)
    assert isinstance(error, ChainChanged)
    follower._thread.join(5)
    assert not follower.is_alive()
    follower.stop()


def test_a_follower_stopped_at_once_ends_without_delivering_anything(devnet, table):
    items: queue.Queue = queue.Queue()
    start = table.client.head_block().ref
    follower = FollowerThread(devnet.rest_url, [NAMESPACE], after=start, deliver=items.put).start()
    follower.stop()
    assert not follower.is_alive()
    assert items.empty()
