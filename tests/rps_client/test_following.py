"""One rps game followed block by block until it reaches what a command waits for, within the command's budget.

Runs against the scripted REST API of ``tests/client_core/scripted_ledger.py`` (xo-devnet's
websocket behaviour), on a thread of its own.
"""

import math

import pytest

from client_core.errors import InvalidInput
from client_core.rest import RestClient
from rps_client.following import Budget, FollowedGame, OutOfTime
from rps_tp.family import game_address
from rps_tp.game import PLAYING_GAME
from rps_tp.state import encode_bucket
from tests.client_core.scripted_ledger import ScriptedLedger, in_a_thread
from tests.rps_client.plays import ALICE, created, started

G1 = game_address("g1")


@pytest.fixture
def ledger():
    with in_a_thread(ScriptedLedger("devnet")) as server:
        server.commit_now({G1: encode_bucket([created()])})
        yield server


def test_a_budget_shrinks_and_an_unbounded_one_never_does():
    assert 0 < Budget(10).remaining() <= 10
    assert Budget(math.inf).remaining() == math.inf


def test_the_game_is_read_then_followed_until_it_starts(ledger):
    with FollowedGame(RestClient(ledger.url), "g1") as followed:
        assert followed.game.host == ALICE
        ledger.commit_now({G1: encode_bucket([started()])})
        game = followed.until(lambda game: game is not None and game.state == PLAYING_GAME, Budget(5))
        assert game == started()


def test_waiting_past_the_budget_is_out_of_time(ledger):
    with FollowedGame(RestClient(ledger.url), "g1") as followed, pytest.raises(OutOfTime):
        followed.until(lambda game: game is None, Budget(0.1))


def test_a_deleted_game_is_none_and_data_that_is_not_rps_stops_the_wait(ledger):
    with FollowedGame(RestClient(ledger.url), "g1") as followed:
        ledger.commit_now({G1: None})
        assert followed.until(lambda game: game is None, Budget(5)) is None
        ledger.commit_now({G1: b"not rps"})
        with pytest.raises(InvalidInput, match="cannot be read any more"):
            followed.until(lambda game: game is not None, Budget(5))
