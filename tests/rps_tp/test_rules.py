"""The rules, op by op: what each does, and every refusal with the message the player reads."""

import pytest
from sawtooth_sdk.processor.exceptions import InvalidTransaction

from rps_tp import rules
from rps_tp.commitment import commitment
from rps_tp.game import (
    AWAITING_GAME,
    AWAITING_HOST,
    CONCLUDED,
    DEFAULT_SETTINGS,
    MAX_ROUNDS,
    PLAYING_GAME,
    Game,
    Player,
    Result,
    Settings,
    consistency_problem,
    moment_of,
)
from rps_tp.ops import Claim, Commit, Create, Delete, Join, Op, Ready, Resign, Reveal, Setup
from rps_tp.rules import IllegalMove, apply_op
from tests.rps_tp.fakes import public_key
from tests.rps_tp.moments import JOINING, SETTING_UP, committing, revealing
from tests.rps_tp.moments import over as over_moment

ALICE = public_key(1)
BOB = public_key(2)
CAROL = public_key(3)
SALT_A = bytes(range(32))
SALT_B = bytes(range(32, 64))


def apply(game: Game | None, op: Op, signer: str, now: int | None = None) -> Game | None:
    """Apply ``op`` and check that the game the rules return is one they could produce."""
    after = apply_op(game, op, signer, now)
    assert after is None or consistency_problem(after) is None, consistency_problem(after)
    return after


def refused(game: Game | None, op: Op, signer: str, now: int | None = None) -> str:
    with pytest.raises(IllegalMove) as raised:
        apply_op(game, op, signer, now)
    return str(raised.value)


def lobby(settings: Settings | None = None, players: tuple[str, ...] = (ALICE, BOB)) -> Game:
    game = apply(None, Create("g1", settings=settings), players[0])
    for player in players[1:]:
        game = apply(game, Join("g1", SETTING_UP), player)
    assert game is not None
    return game


def playing(settings: Settings = DEFAULT_SETTINGS, now: int | None = None) -> Game:
    """A game in round 1; Bob's ready, which starts play, is applied at ``now``."""
    game = lobby(settings)
    game = apply(game, Ready("g1", SETTING_UP, settings), ALICE)
    game = apply(game, Ready("g1", SETTING_UP, settings), BOB, now)
    assert game is not None and game.state == PLAYING_GAME
    return game


def commit_op(game: Game, player: str, throw: str, salt: bytes) -> Commit:
    return Commit("g1", committing(game.round), commitment("g1", game.round, player, throw, salt))


def play_round(game: Game, throw_a: str, throw_b: str, now: int | None = None) -> Game:
    game = apply(game, commit_op(game, ALICE, throw_a, SALT_A), ALICE, now)
    game = apply(game, commit_op(game, BOB, throw_b, SALT_B), BOB, now)
    game = apply(game, Reveal("g1", revealing(game.round), throw_a, SALT_A), ALICE, now)
    game = apply(game, Reveal("g1", revealing(game.round), throw_b, SALT_B), BOB, now)
    assert game is not None
    return game


def test_illegal_moves_are_the_sdks_invalid_transaction():
    assert issubclass(IllegalMove, InvalidTransaction)


class TestCreate:
    def test_the_creator_joins_as_host_with_the_default_settings(self):
        game = apply(None, Create("g1"), ALICE)
        assert game == Game("g1", AWAITING_GAME, ALICE, Settings(1, 300), (Player(ALICE),), 0, (), None, None, None)

    def test_create_can_carry_settings(self):
        assert apply(None, Create("g1", settings=Settings(3, 60)), ALICE).settings == Settings(3, 60)

    def test_a_game_created_without_joining_awaits_its_host(self):
        game = apply(None, Create("g1", join=False), ALICE)
        assert (game.state, game.host, game.players) == (AWAITING_HOST, None, ())

    def test_a_name_in_use_is_refused(self):
        assert refused(lobby(), Create("g1"), CAROL) == "game 'g1' already exists"


class TestJoin:
    def test_the_first_to_join_a_hostless_game_hosts_it(self):
        game = apply(apply(None, Create("g1", join=False), CAROL), Join("g1", JOINING), BOB)
        assert (game.state, game.host, game.players) == (AWAITING_GAME, BOB, (Player(BOB),))

    def test_the_second_player_takes_the_second_seat(self):
        assert lobby().players == (Player(ALICE), Player(BOB))

    def test_joining_twice_is_refused(self):
        assert refused(lobby(players=(ALICE,)), Join("g1", SETTING_UP), ALICE) == "you have already joined game 'g1'"

    def test_a_third_player_is_refused(self):
        assert refused(lobby(), Join("g1", SETTING_UP), CAROL) == "game 'g1' is full: it has two players already"

    def test_a_missing_game_cannot_be_joined(self):
        assert refused(None, Join("g1", SETTING_UP), ALICE) == "game 'g1' does not exist; create it first"


class TestSetup:
    def test_the_host_changes_the_settings_and_every_ready_flag_is_cleared(self):
        game = apply(lobby(), Ready("g1", SETTING_UP, DEFAULT_SETTINGS), BOB)
        game = apply(game, Setup("g1", SETTING_UP, Settings(3, 120)), ALICE)
        assert game.settings == Settings(3, 120)
        assert [player.ready for player in game.players] == [False, False]

    def test_only_the_host_sets_up(self):
        assert refused(lobby(), Setup("g1", SETTING_UP, Settings(2, 60)), BOB) == (
            f"only the host of game 'g1' ({ALICE[:6]}...) can change its settings"
        )

    def test_a_hostless_game_cannot_be_set_up(self):
        game = apply(None, Create("g1", join=False), ALICE)
        assert refused(game, Setup("g1", SETTING_UP, Settings(2, 60)), ALICE) == (
            "game 'g1' has no host yet: join it first (the first player to join a game hosts it)"
        )


class TestReady:
    def test_one_ready_player_does_not_start_the_game(self):
        game = apply(lobby(), Ready("g1", SETTING_UP, DEFAULT_SETTINGS), ALICE)
        assert game.state == AWAITING_GAME
        assert [player.ready for player in game.players] == [True, False]

    def test_ready_is_idempotent(self):
        game = apply(lobby(), Ready("g1", SETTING_UP, DEFAULT_SETTINGS), ALICE)
        assert apply(game, Ready("g1", SETTING_UP, DEFAULT_SETTINGS), ALICE) == game

    def test_both_ready_starts_round_one_and_the_clock_of_its_commit_phase(self):
        game = playing(Settings(2, 30), now=1000)
        assert (game.state, game.round, game.waiting_since) == (PLAYING_GAME, 1, 1000)
        assert game.settings == Settings(2, 30)

    def test_without_block_info_play_starts_with_no_clock(self):
        assert playing(now=None).waiting_since is None

    def test_a_ready_that_does_not_start_play_starts_no_clock(self):
        assert apply(lobby(), Ready("g1", SETTING_UP, DEFAULT_SETTINGS), ALICE, now=1000).waiting_since is None

    def test_a_lone_ready_host_plays_once_a_second_player_joins_and_is_ready(self):
        game = apply(lobby(players=(ALICE,)), Ready("g1", SETTING_UP, DEFAULT_SETTINGS), ALICE)
        game = apply(game, Join("g1", SETTING_UP), BOB)
        assert game.state == AWAITING_GAME
        assert apply(game, Ready("g1", SETTING_UP, DEFAULT_SETTINGS), BOB).state == PLAYING_GAME

    def test_ready_for_other_settings_is_refused(self):
        game = lobby(Settings(3, 120))
        assert refused(game, Ready("g1", SETTING_UP, DEFAULT_SETTINGS), BOB) == (
            "game 'g1' is now set up as first to 3 points, 2 min 0 s to act, "
            "not first to 1 point, 5 min 0 s to act: be ready for its current settings"
        )

    def test_a_ready_from_before_a_setup_must_be_sent_again(self):
        game = apply(lobby(), Ready("g1", SETTING_UP, DEFAULT_SETTINGS), ALICE)
        game = apply(game, Setup("g1", SETTING_UP, Settings(1, 1)), ALICE)
        game = apply(game, Ready("g1", SETTING_UP, Settings(1, 1)), BOB)
        assert game.state == AWAITING_GAME
        assert apply(game, Ready("g1", SETTING_UP, Settings(1, 1)), ALICE).state == PLAYING_GAME

    def test_a_spectator_cannot_be_ready(self):
        assert refused(lobby(), Ready("g1", SETTING_UP, DEFAULT_SETTINGS), CAROL) == (
            "you are not a player in game 'g1'; join it first"
        )


class TestCommit:
    def test_the_first_commitment_leaves_the_clock_of_the_commit_phase_running(self):
        game = playing(now=1000)
        game = apply(game, commit_op(game, ALICE, "rock", SALT_A), ALICE, now=1250)
        assert game.players[0].commitment == commitment("g1", 1, ALICE, "rock", SALT_A)
        assert game.waiting_since == 1000

    def test_the_second_commitment_starts_the_clock_of_the_reveal_phase(self):
        game = playing(now=900)
        game = apply(game, commit_op(game, BOB, "paper", SALT_B), BOB, now=1000)
        game = apply(game, commit_op(game, ALICE, "rock", SALT_A), ALICE, now=1010)
        assert game.waiting_since == 1010
        assert all(player.commitment for player in game.players)

    def test_without_block_info_the_reveal_phase_starts_no_clock(self):
        game = playing(now=900)
        game = apply(game, commit_op(game, BOB, "paper", SALT_B), BOB, now=None)
        assert apply(game, commit_op(game, ALICE, "rock", SALT_A), ALICE, now=None).waiting_since is None

    def test_a_commitment_is_final(self):
        game = playing()
        game = apply(game, commit_op(game, ALICE, "rock", SALT_A), ALICE)
        assert refused(game, commit_op(game, ALICE, "paper", SALT_A), ALICE) == (
            "you have already committed in round 1 of game 'g1'; a commitment is final"
        )

    def test_a_commitment_for_another_round_is_refused(self):
        game = playing()
        assert refused(game, Commit("g1", committing(2), bytes(32)), ALICE).startswith(
            "game 'g1' is at round 1, commit phase; this commit was signed for round 2, commit phase"
        )

    def test_a_spectator_cannot_commit(self):
        game = playing()
        assert refused(game, commit_op(game, CAROL, "rock", SALT_A), CAROL) == "you are not a player in game 'g1'"

    def test_no_commitment_before_the_game_starts(self):
        assert refused(lobby(), Commit("g1", committing(1), bytes(32)), ALICE) == (
            "game 'g1' has not started yet: it starts once two players have joined and are ready"
        )


class TestReveal:
    def test_the_first_reveal_leaves_the_clock_of_the_reveal_phase_running(self):
        game = playing(now=990)
        game = apply(game, commit_op(game, ALICE, "rock", SALT_A), ALICE, now=1000)
        game = apply(game, commit_op(game, BOB, "paper", SALT_B), BOB, now=1005)
        game = apply(game, Reveal("g1", revealing(1), "paper", SALT_B), BOB, now=1010)
        assert (game.players[1].throw, game.waiting_since) == ("paper", 1005)

    def test_the_second_reveal_scores_the_round_and_starts_the_clock_of_the_next(self):
        game = play_round(playing(Settings(2, 300), now=990), "rock", "scissors", now=1000)
        assert (game.state, game.round, game.history, game.waiting_since) == (
            PLAYING_GAME,
            2,
            (("rock", "scissors"),),
            1000,
        )
        assert game.players == (Player(ALICE, True, 1), Player(BOB, True, 0))

    def test_without_block_info_the_next_round_starts_no_clock(self):
        game = play_round(playing(Settings(2, 300), now=990), "rock", "scissors", now=None)
        assert (game.round, game.waiting_since) == (2, None)

    def test_the_reveal_that_ends_the_game_stops_the_clock(self):
        game = play_round(playing(Settings(1, 300), now=990), "rock", "scissors", now=1000)
        assert (game.state, game.waiting_since) == (CONCLUDED, None)

    def test_a_tie_scores_nothing(self):
        game = play_round(playing(), "paper", "paper")
        assert (game.state, game.round, [player.score for player in game.players]) == (PLAYING_GAME, 2, [0, 0])

    @pytest.mark.parametrize(
        ("throw_a", "throw_b", "winner"),
        [
            ("rock", "scissors", 0),
            ("scissors", "paper", 0),
            ("paper", "rock", 0),
            ("scissors", "rock", 1),
            ("paper", "scissors", 1),
            ("rock", "paper", 1),
        ],
    )
    def test_rock_beats_scissors_beats_paper_beats_rock(self, throw_a, throw_b, winner):
        game = play_round(playing(), throw_a, throw_b)
        assert game.state == CONCLUDED
        assert [result.outcome for result in game.results] == (["won", "lost"] if winner == 0 else ["lost", "won"])

    def test_first_to_the_points_objective_wins_normally(self):
        game = playing(Settings(3, 300))
        for throws in [("rock", "paper"), ("rock", "rock"), ("rock", "scissors"), ("paper", "rock")]:
            game = play_round(game, *throws)
        assert game.state == PLAYING_GAME
        game = play_round(game, "scissors", "paper")
        assert (game.state, game.round, game.conclusion_type) == (CONCLUDED, 5, "normal")
        assert game.results == (Result("won", 3), Result("lost", 1))
        assert game.players == (Player(ALICE, True, 3), Player(BOB, True, 1))

    def test_after_the_last_round_equal_scores_draw(self):
        game = playing(Settings(3, 300))
        game = play_round(game, "rock", "scissors")
        game = play_round(game, "rock", "paper")
        for _ in range(MAX_ROUNDS - 3):
            game = play_round(game, "rock", "rock")
        assert (game.state, game.round) == (PLAYING_GAME, MAX_ROUNDS)
        game = play_round(game, "paper", "paper")
        assert (game.state, game.conclusion_type, game.results) == (
            CONCLUDED,
            "normal",
            (Result("drew", 1), Result("drew", 1)),
        )
        assert len(game.history) == MAX_ROUNDS

    def test_after_the_last_round_the_higher_score_wins(self):
        game = playing(Settings(3, 300))
        game = play_round(game, "rock", "scissors")
        for _ in range(MAX_ROUNDS - 1):
            game = play_round(game, "rock", "rock")
        assert game.results == (Result("won", 1), Result("lost", 0))

    def test_a_throw_or_salt_that_does_not_match_the_commitment_is_refused(self):
        game = playing()
        game = apply(game, commit_op(game, ALICE, "rock", SALT_A), ALICE)
        game = apply(game, commit_op(game, BOB, "paper", SALT_B), BOB)
        message = "paper with that salt does not match your commitment in round 1 of game 'g1'"
        assert refused(game, Reveal("g1", revealing(1), "paper", SALT_A), ALICE) == message
        assert refused(game, Reveal("g1", revealing(1), "rock", SALT_B), ALICE) == message.replace("paper", "rock")

    def test_revealing_before_the_opponent_has_committed_is_refused(self):
        game = playing()
        game = apply(game, commit_op(game, ALICE, "rock", SALT_A), ALICE)
        assert refused(game, Reveal("g1", revealing(1), "rock", SALT_A), ALICE).startswith(
            "game 'g1' is at round 1, commit phase; this reveal was signed for round 1, reveal phase"
        )
        assert refused(game, Reveal("g1", committing(1), "rock", SALT_A), ALICE) == (
            "your opponent has not committed in round 1 of game 'g1' yet; reveal once both players have committed"
        )

    def test_revealing_without_a_commitment_is_refused(self):
        assert refused(playing(), Reveal("g1", committing(1), "rock", SALT_A), ALICE) == (
            "you have not committed in round 1 of game 'g1'; commit before you reveal"
        )

    def test_revealing_twice_is_refused(self):
        game = playing()
        game = apply(game, commit_op(game, ALICE, "rock", SALT_A), ALICE)
        game = apply(game, commit_op(game, BOB, "paper", SALT_B), BOB)
        game = apply(game, Reveal("g1", revealing(1), "rock", SALT_A), ALICE)
        assert refused(game, Reveal("g1", revealing(1), "rock", SALT_A), ALICE) == (
            "you have already revealed your throw in round 1 of game 'g1'"
        )

    def test_a_reveal_for_another_round_is_refused(self):
        game = play_round(playing(Settings(2, 300)), "rock", "rock")
        assert refused(game, Reveal("g1", revealing(1), "rock", SALT_A), ALICE).startswith(
            "game 'g1' is at round 2, commit phase; this reveal was signed for round 1, reveal phase"
        )

    def test_a_copied_commitment_cannot_be_revealed_by_the_copier(self):
        game = playing()
        alices = commitment("g1", 1, ALICE, "rock", SALT_A)
        game = apply(game, Commit("g1", committing(1), alices), ALICE)
        game = apply(game, Commit("g1", committing(1), alices), BOB)
        game = apply(game, Reveal("g1", revealing(1), "rock", SALT_A), ALICE)
        for throw in ("rock", "paper", "scissors"):
            assert "does not match your commitment" in refused(game, Reveal("g1", revealing(1), throw, SALT_A), BOB)

    def test_a_commitment_replayed_in_a_later_round_cannot_be_revealed(self):
        game = playing(Settings(2, 300))
        round_one = commitment("g1", 1, ALICE, "rock", SALT_A)
        game = apply(game, Commit("g1", committing(1), round_one), ALICE)
        game = apply(game, commit_op(game, BOB, "rock", SALT_B), BOB)
        game = apply(game, Reveal("g1", revealing(1), "rock", SALT_A), ALICE)
        game = apply(game, Reveal("g1", revealing(1), "rock", SALT_B), BOB)
        game = apply(game, Commit("g1", committing(2), round_one), ALICE)
        game = apply(game, commit_op(game, BOB, "rock", SALT_B), BOB)
        assert "does not match your commitment" in refused(game, Reveal("g1", revealing(2), "rock", SALT_A), ALICE)


class TestResign:
    def test_resigning_concludes_the_game_for_the_opponent(self):
        game = play_round(playing(Settings(3, 300)), "rock", "scissors")
        game = apply(game, commit_op(game, BOB, "rock", SALT_B), BOB, now=5)
        game = apply(game, Resign("g1", committing(2)), ALICE)
        assert (game.state, game.conclusion_type, game.results) == (
            CONCLUDED,
            "by-resignation",
            (Result("resigned", 1), Result("won", 0)),
        )
        assert (game.round, game.waiting_since) == (2, None)
        assert all(player.commitment is None for player in game.players)

    def test_a_spectator_cannot_resign(self):
        assert refused(playing(), Resign("g1", committing(1)), CAROL) == "you are not a player in game 'g1'"

    def test_a_game_not_started_cannot_be_resigned(self):
        assert refused(lobby(), Resign("g1", committing(1)), BOB) == (
            "game 'g1' has not started yet: it starts once two players have joined and are ready"
        )


class TestClaim:
    def waiting_for_bob(self, now: int = 1000, timeout: int = 300) -> Game:
        """Play starts at ``now``; Alice commits at once, Bob does not."""
        game = playing(Settings(1, timeout), now=now)
        return apply(game, commit_op(game, ALICE, "rock", SALT_A), ALICE, now)

    def test_a_player_kept_waiting_past_the_time_out_wins(self):
        game = apply(self.waiting_for_bob(), Claim("g1", committing(1)), ALICE, now=1300)
        assert (game.state, game.conclusion_type, game.results) == (
            CONCLUDED,
            "by-timeout",
            (Result("won", 0), Result("timed-out", 0)),
        )

    def test_a_claim_before_the_time_out_is_refused_with_the_time_left(self):
        game = self.waiting_for_bob()
        assert refused(game, Claim("g1", committing(1)), ALICE, now=1299) == (
            "your opponent still has 1 s to commit in round 1 of game 'g1'"
        )
        assert refused(game, Claim("g1", committing(1)), ALICE, now=1000) == (
            "your opponent still has 5 min 0 s to commit in round 1 of game 'g1'"
        )

    def test_the_time_out_runs_from_the_start_of_the_phase_however_late_the_claimant_acted(self):
        game = playing(Settings(1, 300), now=1000)
        game = apply(game, commit_op(game, ALICE, "rock", SALT_A), ALICE, now=1290)
        assert refused(game, Claim("g1", committing(1)), ALICE, now=1295) == (
            "your opponent still has 5 s to commit in round 1 of game 'g1'"
        )
        game = apply(game, Claim("g1", committing(1)), ALICE, now=1300)
        assert (game.conclusion_type, game.results) == ("by-timeout", (Result("won", 0), Result("timed-out", 0)))

    def test_in_a_later_round_the_time_out_runs_from_the_reveal_that_scored_the_last(self):
        game = play_round(playing(Settings(2, 300), now=0), "rock", "scissors", now=1000)
        game = apply(game, commit_op(game, BOB, "paper", SALT_B), BOB, now=1200)
        assert refused(game, Claim("g1", committing(2)), BOB, now=1299) == (
            "your opponent still has 1 s to commit in round 2 of game 'g1'"
        )
        assert apply(game, Claim("g1", committing(2)), BOB, now=1300).results == (
            Result("timed-out", 1),
            Result("won", 0),
        )

    def test_a_player_who_has_not_acted_cannot_claim(self):
        game = self.waiting_for_bob()
        assert refused(game, Claim("g1", committing(1)), BOB, now=5000) == (
            "you cannot claim game 'g1': you have not committed in round 1 yourself, "
            "so your opponent is not holding the game up"
        )

    def test_nobody_can_claim_while_both_are_to_act(self):
        game = playing()
        for player in (ALICE, BOB):
            refusal = refused(game, Claim("g1", committing(1)), player, now=10**9)
            assert "you have not committed in round 1 yourself" in refusal

    def test_a_player_who_revealed_may_claim_against_one_who_does_not(self):
        game = self.waiting_for_bob()
        game = apply(game, commit_op(game, BOB, "paper", SALT_B), BOB, now=1100)
        game = apply(game, Reveal("g1", revealing(1), "paper", SALT_B), BOB, now=1200)
        assert refused(game, Claim("g1", revealing(1)), BOB, now=1399) == (
            "your opponent still has 1 s to reveal in round 1 of game 'g1'"
        )
        assert "you have not revealed in round 1 yourself" in refused(game, Claim("g1", revealing(1)), ALICE, now=5000)
        game = apply(game, Claim("g1", revealing(1)), BOB, now=1400)
        assert game.results == (Result("timed-out", 0), Result("won", 0))

    def test_a_claim_on_a_network_without_block_info_is_refused_saying_why(self):
        assert refused(self.waiting_for_bob(), Claim("g1", committing(1)), ALICE, now=None) == (
            "game 'g1': a time-out cannot be claimed on this network: it keeps no BlockInfo, the clock time-outs "
            "are measured by (run the block_info transaction processor and the validator's BlockInfo injector)"
        )

    def test_a_wait_that_began_without_block_info_cannot_be_claimed(self):
        game = self.waiting_for_bob()._replace(waiting_since=None)
        assert refused(game, Claim("g1", committing(1)), ALICE, now=10**9) == (
            "game 'g1': no time-out is running: the network kept no BlockInfo when your opponent's turn began"
        )

    def test_a_spectator_cannot_claim(self):
        refusal = refused(self.waiting_for_bob(), Claim("g1", committing(1)), CAROL, now=10**9)
        assert refusal == "you are not a player in game 'g1'"


class TestDelete:
    def test_the_host_deletes_a_game_waiting_to_start_or_over(self):
        assert apply(lobby(), Delete("g1", SETTING_UP), ALICE) is None
        over = apply(playing(), Resign("g1", committing(1)), BOB)
        assert apply(over, Delete("g1", over_moment(1)), ALICE) is None

    def test_only_the_host_deletes(self):
        refusal = refused(lobby(), Delete("g1", SETTING_UP), BOB)
        assert refusal == f"only the host of game 'g1' ({ALICE[:6]}...) can delete it"

    def test_a_game_in_play_cannot_be_deleted(self):
        assert refused(playing(), Delete("g1", SETTING_UP), ALICE) == (
            "game 'g1' is being played; its host can delete it once it is over"
        )

    def test_a_hostless_game_cannot_be_deleted(self):
        game = apply(None, Create("g1", join=False), ALICE)
        assert refused(game, Delete("g1", JOINING), ALICE) == (
            "game 'g1' has no host yet: join it first (the first player to join a game hosts it)"
        )


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (Join("g1", SETTING_UP), "game 'g1' has already started; it can no longer be joined"),
        (Setup("g1", SETTING_UP, DEFAULT_SETTINGS), "game 'g1' has already started; its settings can no longer change"),
        (Ready("g1", SETTING_UP, DEFAULT_SETTINGS), "game 'g1' has already started"),
    ],
)
def test_lobby_ops_are_refused_once_play_has_started(op, message):
    assert refused(playing(), op, ALICE) == message


@pytest.mark.parametrize(
    "op",
    [
        Join("g1", SETTING_UP),
        Setup("g1", SETTING_UP, DEFAULT_SETTINGS),
        Ready("g1", SETTING_UP, DEFAULT_SETTINGS),
        Commit("g1", committing(1), bytes(32)),
        Reveal("g1", revealing(1), "rock", SALT_A),
        Resign("g1", committing(1)),
        Claim("g1", committing(1)),
    ],
)
def test_a_concluded_game_allows_only_delete(op):
    over = apply(playing(), Resign("g1", committing(1)), BOB)
    assert refused(over, op, ALICE, now=10**9) == "game 'g1' is over"


@pytest.mark.parametrize(
    "op",
    [Commit("g1", committing(1), bytes(32)), Reveal("g1", revealing(1), "rock", SALT_A), Claim("g1", committing(1))],
)
def test_ops_of_play_are_refused_in_a_game_without_players(op):
    game = apply(None, Create("g1", join=False), ALICE)
    assert refused(game, op, ALICE) == (
        "game 'g1' has not started yet: it starts once two players have joined and are ready"
    )


class TestMoments:
    """Every op on a game names the round and phase it was signed for, and counts then only (issue 23)."""

    def test_a_resign_refused_before_play_does_not_count_once_play_starts(self):
        game = lobby()
        resign = Resign("g1", moment_of(game))  # what Bob's client signs, having read the game
        assert refused(game, resign, BOB) == (
            "game 'g1' has not started yet: it starts once two players have joined and are ready"
        )
        game = apply(
            apply(game, Ready("g1", SETTING_UP, DEFAULT_SETTINGS), ALICE),
            Ready("g1", SETTING_UP, DEFAULT_SETTINGS),
            BOB,
        )
        assert refused(game, resign, BOB) == (
            "game 'g1' is at round 1, commit phase; this resign was signed for round 0, setup phase: an op counts "
            "only in the round and phase it was signed for (read the game again, then sign a new one)"
        )

    def test_the_moment_of_a_game_is_its_round_and_the_step_both_players_take(self):
        hostless = apply(None, Create("g1", join=False), ALICE)
        assert moment_of(hostless) == JOINING
        assert moment_of(lobby()) == SETTING_UP
        game = playing()
        assert moment_of(game) == committing(1)
        game = apply(game, commit_op(game, ALICE, "rock", SALT_A), ALICE)
        assert moment_of(game) == committing(1)  # until both have committed
        game = apply(game, commit_op(game, BOB, "paper", SALT_B), BOB)
        assert moment_of(game) == revealing(1)
        game = apply(game, Reveal("g1", revealing(1), "rock", SALT_A), ALICE)
        assert moment_of(game) == revealing(1)  # until both have revealed
        game = apply(game, Reveal("g1", revealing(1), "paper", SALT_B), BOB)
        assert moment_of(game) == over_moment(1)

    @pytest.mark.parametrize(
        ("op", "signer"),
        [
            (Join("g1", JOINING), CAROL),
            (Setup("g1", JOINING, DEFAULT_SETTINGS), ALICE),
            (Ready("g1", committing(1), DEFAULT_SETTINGS), BOB),
            (Delete("g1", over_moment(1)), ALICE),
        ],
    )
    def test_an_op_before_play_signed_for_another_moment_is_refused(self, op, signer):
        assert refused(lobby(), op, signer) == (
            f"game 'g1' is at round 0, setup phase; this {op.NAME} was signed for round {op.at.round}, "
            f"{op.at.phase} phase: an op counts only in the round and phase it was signed for (read the game again, "
            "then sign a new one)"
        )

    def test_a_join_signed_to_host_a_hostless_game_does_not_seat_a_guest(self):
        game = apply(None, Create("g1", join=False), CAROL)
        carols = Join("g1", moment_of(game))
        game = apply(game, Join("g1", JOINING), ALICE)  # Alice joins first and hosts it
        assert refused(game, carols, CAROL).startswith(
            "game 'g1' is at round 0, setup phase; this join was signed for round 0, join phase"
        )

    @pytest.mark.parametrize(
        "op",
        [
            Commit("g1", revealing(1), bytes(32)),
            Commit("g1", committing(2), bytes(32)),
            Reveal("g1", revealing(2), "rock", SALT_A),
            Resign("g1", SETTING_UP),
            Resign("g1", revealing(1)),
            Resign("g1", committing(2)),
            Claim("g1", revealing(1)),
            Claim("g1", SETTING_UP),
        ],
    )
    def test_an_op_in_play_signed_for_another_moment_is_refused(self, op):
        game = playing()
        assert refused(game, op, ALICE, now=10**9).startswith(
            f"game 'g1' is at round 1, commit phase; this {op.NAME} was signed for round {op.at.round}, "
            f"{op.at.phase} phase"
        )

    def test_a_claim_signed_in_the_commit_phase_does_not_count_in_the_reveal_phase(self):
        game = TestClaim().waiting_for_bob()
        claim = Claim("g1", moment_of(game))  # Alice's, too early
        assert refused(game, claim, ALICE, now=1100).startswith("your opponent still has 3 min 20 s to commit")
        game = apply(game, commit_op(game, BOB, "paper", SALT_B), BOB, now=1200)
        game = apply(game, Reveal("g1", revealing(1), "paper", SALT_B), BOB, now=1250)
        assert refused(game, claim, ALICE, now=10**9).startswith(
            "game 'g1' is at round 1, reveal phase; this claim was signed for round 1, commit phase"
        )

    def test_a_delete_refused_in_play_does_not_count_once_the_game_is_over(self):
        game = playing()
        delete = Delete("g1", moment_of(game))
        assert refused(game, delete, ALICE) == "game 'g1' is being played; its host can delete it once it is over"
        over = apply(game, Resign("g1", committing(1)), BOB)
        assert refused(over, delete, ALICE).startswith(
            "game 'g1' is at round 1, over phase; this delete was signed for round 1, commit phase"
        )


def test_the_table_of_allowed_ops_covers_every_state_and_op():
    expected = {
        "AWAITING_HOST": {"join"},
        "AWAITING_GAME": {"join", "setup", "ready", "delete"},
        "PLAYING_GAME": {"commit", "reveal", "resign", "claim"},
        "CONCLUDED": {"delete"},
    }
    assert {state: set(ops) for state, ops in rules.ALLOWED.items()} == expected
