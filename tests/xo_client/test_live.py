"""Games followed live for ``xo play`` and ``xo bot``: read as of the newest block, then each block on the queue.

Runs against the scripted REST API of ``tests/client_core/scripted_ledger.py`` (xo-devnet's
websocket behaviour), on a thread of its own.
"""

import queue

import pytest

from client_core.rest import RestClient
from tests.client_core.scripted_ledger import ScriptedLedger, in_a_thread
from xo_client.live import BlockEvent, LiveGames
from xo_tp.family import game_address

ALICE = "02" + "a" * 64
G1, G2 = game_address("g1"), game_address("g2")


@pytest.fixture
def ledger():
    with in_a_thread(ScriptedLedger("devnet")) as server:
        server.commit_now({G1: b"g1,---------,P1-NEXT,,", G2: b"g2,---------,P1-NEXT,,"})
        yield server


def next_block(events):
    event = events.get(timeout=5)
    assert isinstance(event, BlockEvent), event
    return event.block


def test_the_followed_name_is_read_then_moved_on_by_each_block(ledger):
    events = queue.Queue()
    with LiveGames(RestClient(ledger.url), events, ["g1"]) as live:
        head = live.start()
        assert head.block_num == 1
        assert [game.name for game in live.games()] == ["g1"]
        ledger.commit_now({G1: f"g1,----X----,P2-NEXT,{ALICE},".encode()})
        changes = live.apply(next_block(events))
        assert [(change.kind, change.space, change.player) for change in changes] == [("take", 5, ALICE)]
        assert live.game("g1").board == "----X----"
        assert live.game("g2") is None  # not followed


def test_following_every_game_tells_every_change(ledger):
    events = queue.Queue()
    with LiveGames(RestClient(ledger.url), events, None) as live:
        live.start()
        assert [game.name for game in live.games()] == ["g1", "g2"]
        ledger.commit_now({G2: None})
        assert [(change.kind, change.name) for change in live.apply(next_block(events))] == [("delete", "g2")]
        assert [game.name for game in live.games()] == ["g1"]
