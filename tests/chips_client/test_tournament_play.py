"""A field of players, each running :class:`TournamentPlay` on its own thread, takes a tournament to its end against
the real handler with no director; and :func:`next_action` says who is due to do what.

The chain is the in-memory one of the processor's tests; a "match" here concludes the
channel at once on a result the test draws, as both players' signatures would.
"""

from __future__ import annotations

import contextlib
import random
import threading

from chips_client import tournament_transactions as ttx
from chips_client import transactions as tx
from chips_client.tournament_play import TournamentPlay
from chips_client.tournaments import ADVANCE, DONE, PLAY, RESULT, START, Action, my_board, next_action
from chips_tp import xo_app
from chips_tp.channel import channel_id
from chips_tp.channel_state import State
from chips_tp.family import channel_address, tournament_address
from chips_tp.state import Channel, decode_channel
from chips_tp.tournament import CLOSED, PLAYING, Pairing, Tournament, match_fixed
from chips_tp.tournament_ops import Create
from chips_tp.tournament_state import decode_tournament
from client_core.errors import Rejected, Unavailable
from tests.chips_tp.harness import ISSUER, NOW, Chain
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer

PLAYERS = tuple(Signer.from_hex(f"{index + 40:064x}") for index in range(5))
BY_KEY = {p.public_key: p for p in PLAYERS}


class SharedChain:
    """The in-memory chain behind a lock, read and written by every player's thread."""

    def __init__(self) -> None:
        self.chain, self.lock, self.committed = Chain(), threading.Lock(), 0
        for player in PLAYERS:
            self.chain.submit(tx.issue(ISSUER, player.public_key, 100))

    def tournament(self, name: str) -> Tournament | None:
        with self.lock:
            return decode_tournament(tournament_address(name), self.chain.state.get(tournament_address(name), b""))

    def match(self, tournament: Tournament, board: int) -> Channel | None:
        address = channel_address(channel_id(match_fixed(tournament, tournament.round, board)))
        with self.lock:
            return decode_channel(address, self.chain.state.get(address, b""))

    def submit(self, transaction: Transaction, what: str) -> None:
        with self.lock:
            refusal = self.chain.attempt(transaction)
            if refusal:
                raise Rejected(f"the validator rejected {what}: {refusal}")
            self.committed += 1


def test_five_players_run_a_swiss_to_the_payout_with_one_start_result_and_advance_each():
    shared = SharedChain()
    shared.submit(ttx.create(PLAYERS[0], Create("spring", "xo", "swiss", 3, 10, (2, 5), 60, 180, (70, 30))), "create")
    for player in PLAYERS:
        shared.submit(ttx.enter(player, "spring", 10), "enter")
    shared.committed = 0
    outcomes = random.Random(7)

    def play_match(tournament: Tournament, board: int) -> bool:
        fixed = match_fixed(tournament, tournament.round, board)
        balances = outcomes.choice(((2, 0), (1, 1), (0, 2)))
        final = State(channel_id(fixed), 9, True, xo_app.INITIAL, balances)
        white, black = (BY_KEY[key] for key in fixed.participants)
        with contextlib.suppress(Rejected):  # the opponent's thread concluded it first
            shared.submit(tx.conclude(white, fixed, tx.signed_state(fixed, final, white, black)), "conclude")
        return True

    players = [TournamentPlay(name="spring", signer=p, reader=shared, submit=shared.submit, play_match=play_match,
                              say=lambda _line: None, clock=lambda: NOW + 60) for p in PLAYERS]  # fmt: skip
    finals: list[Tournament] = []
    threads = [threading.Thread(target=lambda p=p: finals.append(p.run(time_limit=20))) for p in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(finals) == 5 and all(t.status == CLOSED for t in finals)
    final = finals[0]
    assert [paid for _key, paid in final.payout or ()] == [35, 15]
    matches = sum(1 for r in final.pairings for p in r if p.black is not None)
    # One start, one result per match, one advance per round; the concludes are the matches' own.
    assert shared.committed == 1 + matches + len(final.pairings) + matches


def tournament(**changed: object) -> Tournament:
    keys = tuple(p.public_key for p in PLAYERS[:4])
    base = Tournament("t", "xo", "swiss", 2, 10, keys[0], 2, 4, NOW, 180, 60, (100,), PLAYING, keys, 40, "d", 1,
                      NOW + 180, ((Pairing(0, 1), Pairing(2, 3)),), None)  # fmt: skip
    return base._replace(**changed)


def test_next_action_plays_records_and_advances_in_turn():
    t = tournament()
    white, black, other = PLAYERS[0].public_key, PLAYERS[1].public_key, PLAYERS[2].public_key
    assert my_board(t, black) == 0 and my_board(t, other) == 1
    assert next_action(t, black, False, NOW) == Action(PLAY, 0)
    assert next_action(t, white, True, NOW) == Action(RESULT, 0, True)
    assert next_action(t, black, True, NOW) == Action(RESULT, 0, False)
    assert next_action(t, black, False, NOW + 180) == Action(ADVANCE, None, True, NOW + 180)
    done = t._replace(pairings=((Pairing(0, 1, "white"), Pairing(2, 3, "draw")),))
    assert next_action(done, black, False, NOW) == Action(ADVANCE, None, True, None)
    assert next_action(done, white, False, NOW) == Action(ADVANCE, None, False, None)
    assert next_action(t._replace(status=CLOSED), white, False, NOW) == Action(DONE)
    joining = t._replace(status="joining", round=0, pairings=(), join_until=NOW + 5, players=t.players[:3])
    assert next_action(joining, white, False, NOW) == Action(START, None, True, NOW + 5)
    assert next_action(joining, black, False, NOW) == Action(START, None, False, NOW + 5)


def test_a_rest_api_away_is_said_once_and_waited_for():
    closed = tournament(status=CLOSED)
    answers: list[object] = [Unavailable("the REST API at http://127.0.0.1:1 does not answer")] * 2 + [closed]
    said: list[str] = []
    pauses: list[float] = []

    class Flaky:
        def tournament(self, name: str) -> Tournament:
            answer = answers.pop(0)
            if isinstance(answer, Exception):
                raise answer
            assert isinstance(answer, Tournament)
            return answer

        def match(self, tournament: Tournament, board: int) -> None:
            return None

    player = TournamentPlay(name="t", signer=PLAYERS[0], reader=Flaky(), submit=lambda *_: None,
                            play_match=lambda *_: True, say=said.append, sleep=pauses.append)  # fmt: skip
    assert player.run(time_limit=5) == closed
    assert said == [
        "the REST API at http://127.0.0.1:1 does not answer; retrying",
        "the REST API answers again",
        "tournament 't' is closed",
    ]
    assert pauses == [0.5, 1.0]
