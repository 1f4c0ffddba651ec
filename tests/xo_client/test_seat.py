"""The seat core: when a key should move, what the computer chooses, and the move on a stand-in REST API.

:func:`xo_client.seat.turn_of` is pure and checked position by position; :class:`SeatPlayer`
plays through ``tests/fake_sawtooth.py``, which checks signatures and applies the
XO rules, so a move signed or built wrongly fails here.
"""

from __future__ import annotations

import asyncio
import os
import stat

import pytest

from client_core.errors import InvalidInput, TimedOut
from client_core.keys import KeyNames
from client_core.rest import RestClient
from xo_client.ai import Level
from xo_client.games import Game
from xo_client.seat import AI_KEY_NAME, Action, SeatPlayer, ai_signer, choose, read_game, turn_of
from xo_core.keyfiles import key_paths
from xo_core.signing import Signer
from xo_tp.family import game_address

ME = "02" + "aa" * 32
YOU = "03" + "bb" * 32
THEM = "02" + "cc" * 32


def game(board: str = "---------", state: str = "P1-NEXT", p1: str = "", p2: str = "", name: str = "g1") -> Game:
    return Game(name, board, state, p1, p2, game_address(name))


@pytest.mark.parametrize(
    ("position", "opens", "action", "mark"),
    [
        (game(), True, Action.MOVE, "X"),  # nobody has joined: it may open
        (game(), False, Action.WAIT, None),  # ... unless it only answers first moves
        (game("----X----", "P2-NEXT", p1=YOU), False, Action.MOVE, "O"),  # a first move made: it answers as O
        (game("----X----", "P2-NEXT", p1=ME), True, Action.WAIT, "X"),  # never both seats
        (game("----X----", "P2-NEXT", p1=ME, p2=YOU), True, Action.WAIT, "X"),  # the other player's turn
        (game("O---X----", "P1-NEXT", p1=ME, p2=YOU), True, Action.MOVE, "X"),  # its own seat
        (game("O---X----", "P1-NEXT", p1=YOU, p2=THEM), True, Action.NO_SEAT, None),
        (game("XXXOO----", "P1-WIN", p1=ME, p2=YOU), True, Action.OVER, "X"),
        (game("XXXOO----", "P1-WIN", p1=YOU, p2=THEM), True, Action.OVER, None),
        (None, True, Action.GONE, None),
    ],
)
def test_turn_of_says_when_a_key_moves(position, opens, action, mark):
    turn = turn_of(position, ME, opens=opens)
    assert (turn.action, turn.mark) == (action, mark)


def test_the_reasons_name_the_players_and_escape_the_game_name():
    names = KeyNames({YOU: "alice", THEM: "bob"})
    hostile = game("O---X----", "P1-NEXT", p1=YOU, p2=THEM, name="g\x1b[31m")
    assert turn_of(hostile, ME, names=names).reason == (
        "both seats of game 'g\\x1b[31m' are taken, by alice and bob"
    )
    waiting = turn_of(game("----X----", "P2-NEXT", p1=ME, p2=YOU), ME, names=names)
    assert waiting.reason == "O to play: alice"
    stranger = turn_of(game("----X----", "P2-NEXT", p1=ME, p2=YOU), ME)
    assert stranger.reason == "O to play: 03bbbb..."


def test_a_seed_makes_the_same_choice_in_the_same_position_and_seeds_differ():
    board = "----X----"
    chosen = {seed: choose(board, "O", Level.PERFECT, seed) for seed in range(40)}
    assert all(choose(board, "O", Level.PERFECT, seed) == space for seed, space in chosen.items())
    assert set(chosen.values()) == {1, 3, 7, 9}, "perfect O answers the centre in a corner, any corner"


def test_each_level_plays_only_legal_moves():
    board = "XO-XO----"
    for level in Level:
        for seed in range(20):
            assert board[choose(board, "X", level, seed) - 1] == "-"
    assert choose(board, "X", Level.PERFECT, 0) == 7, "X completes the left column"


@pytest.fixture
def client(fake):
    with RestClient(fake.url) as rest:
        yield rest


def test_the_player_moves_when_it_is_its_turn_and_the_fake_ledger_commits_it(fake, client):
    human, robot = Signer.generate(), Signer.generate()
    fake.put_game("g1", "----X----", "P2-NEXT", p1=human.public_key)
    player = SeatPlayer(client, robot, seed=1, opens=False)
    outcome = player.play("g1")
    assert outcome.played and outcome.turn.action is Action.MOVE and outcome.turn.mark == "O"
    assert outcome.space == choose("----X----", "O", Level.PERFECT, 1)
    [move] = fake.submitted
    assert (move.signer, move.payload) == (robot.public_key, f"g1,take,{outcome.space}")
    assert outcome.game == read_game(client, "g1"), "the game after, as the ledger has it"
    assert outcome.game.player2 == robot.public_key
    assert outcome.as_json()["played"] is True


def test_the_player_does_nothing_out_of_turn_nor_in_a_game_that_is_over(fake, client):
    robot = Signer.generate()
    fake.put_game("mine-x", "----X----", "P2-NEXT", p1=robot.public_key)
    fake.put_game("over", "XXXOO----", "P1-WIN", p1=ME, p2=YOU)
    player = SeatPlayer(client, robot)
    assert player.play("mine-x").turn.action is Action.WAIT
    assert player.play("over").turn.action is Action.OVER
    assert player.play("missing").turn.action is Action.GONE
    assert fake.submitted == []


def test_the_game_the_caller_gives_is_decided_on_without_a_read_and_if_stale_the_validator_says_so(fake, client):
    robot = Signer.generate()
    fake.put_game("g1", "----X----", "P2-NEXT", p1=YOU, p2=THEM)  # THEM joined meanwhile
    stale = game("----X----", "P2-NEXT", p1=YOU)
    outcome = SeatPlayer(client, robot, seed=2).play("g1", stale)
    assert fake.gets("/state/") == []
    assert outcome.turn.mark == "O" and len(fake.submitted) == 1
    assert not outcome.played
    assert outcome.refusal == "the validator refused it: Not this player's turn"
    assert SeatPlayer(client, robot).play("g1").turn.action is Action.NO_SEAT, "a fresh read knows better"


def test_a_move_the_validator_refuses_is_reported_with_its_reason(fake, client, monkeypatch):
    robot = Signer.generate()
    fake.put_game("g1", "----X----", "P2-NEXT", p1=YOU)
    monkeypatch.setattr(fake, "apply", lambda _move: "Not this player's turn")
    outcome = SeatPlayer(client, robot).play("g1")
    assert not outcome.played
    assert outcome.refusal == "the validator refused it: Not this player's turn"
    assert outcome.batch_id is not None and outcome.space is not None


def test_a_move_still_pending_after_the_wait_is_timed_out_naming_its_batch(fake, client):
    fake.settle = "pending"
    fake.put_game("g1")
    with pytest.raises(TimedOut) as raised:
        SeatPlayer(client, Signer.generate(), wait_seconds=0.2).play("g1")
    assert "is still PENDING after 0.2 s (batch " in raised.value.message
    assert raised.value.message.endswith("it may still commit")


def test_data_that_is_not_xo_stops_play_in_that_game(fake, client):
    fake.state[game_address("g1")] = b"\xff\xfe"
    with pytest.raises(InvalidInput, match="not XO data"):
        SeatPlayer(client, Signer.generate()).play("g1")


def test_aplay_runs_the_move_off_the_event_loop(fake, client):
    fake.put_game("g1")

    async def scenario():
        ticks = 0

        async def tick():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        ticker = asyncio.create_task(tick())
        outcome = await SeatPlayer(client, Signer.generate(), seed=3).aplay("g1")
        ticker.cancel()
        return outcome, ticks

    outcome, ticks = asyncio.run(scenario())
    assert outcome.played and outcome.turn.mark == "X"
    assert ticks > 1, "the loop ran while the move was made"


def test_the_ai_key_is_made_private_on_first_use_then_reused(tmp_path):
    first = ai_signer(tmp_path / "keys")
    private, public = key_paths(tmp_path / "keys", AI_KEY_NAME)
    assert first.created and stat.S_IMODE(os.stat(private).st_mode) == 0o600
    assert public.read_text().strip() == first.signer.public_key
    again = ai_signer(tmp_path / "keys")
    assert not again.created and again.signer.public_key == first.signer.public_key
    assert KeyNames.of_dir(tmp_path / "keys").name(first.signer.public_key) == "xo-ai"


def test_an_ai_key_others_can_read_is_refused_like_any_key(tmp_path):
    ai_signer(tmp_path)
    os.chmod(key_paths(tmp_path, AI_KEY_NAME)[0], 0o644)
    with pytest.raises(InvalidInput, match="is open to others"):
        ai_signer(tmp_path)
