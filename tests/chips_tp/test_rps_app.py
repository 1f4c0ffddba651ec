"""The rps channel app: every round's outcome, the decline, the commitment's binding, and conservation at every step."""

import itertools

import pytest

from chips_tp.channel import Fixed, mover
from chips_tp.channel_state import State
from chips_tp.rps_app import INITIAL, RpsData, transition_problem, valid_transition
from rps_tp.commitment import commitment
from rps_tp.game import THROWS

CHANNEL = bytes(range(32))
PROPOSER = "02" + "11" * 32
RESPONDER = "03" + "22" * 32
FIXED = Fixed((PROPOSER, RESPONDER), "rps", 10, (100, 100), 60, 0)
SALT = bytes(range(32, 64))


def state(turn: int, data: RpsData, balances: tuple[int, int]) -> State:
    return State(CHANNEL, turn, False, data, balances)


def round_states(throw: str, answer: str, start: tuple[int, int] = (100, 100)) -> list[State]:
    """One round from Start at turn 0: proposed (1), accepted (2), revealed (3), back to Start (4)."""
    pledge = commitment(CHANNEL.hex(), 1, PROPOSER, throw, SALT)
    after_accept = (start[0] - 10, start[1] + 10)
    gain = {"win": 20, "tie": 10, "loss": 0}[outcome(throw, answer)]
    after_reveal = (after_accept[0] + gain, after_accept[1] - gain)
    return [
        state(0, INITIAL, start),
        state(1, RpsData("RoundProposed", 1, pledge, None, None, None), start),
        state(2, RpsData("RoundAccepted", 1, pledge, answer, None, None), after_accept),
        state(3, RpsData("Reveal", 1, pledge, answer, throw, SALT), after_reveal),
        state(4, RpsData("Start", 1, None, None, None, None), after_reveal),
    ]


def outcome(throw: str, answer: str) -> str:
    beats = {"rock": "scissors", "scissors": "paper", "paper": "rock"}
    return "tie" if throw == answer else "win" if beats[throw] == answer else "loss"


@pytest.mark.parametrize(("throw", "answer"), list(itertools.product(THROWS, THROWS)))
def test_a_whole_round_for_every_pair_of_throws_conserving_chips_at_every_step(throw, answer):
    states = round_states(throw, answer)
    assert [mover(s.turn) for s in states[1:]] == [0, 1, 0, 1]
    for old, new in itertools.pairwise(states):
        assert valid_transition(old, new, FIXED), transition_problem(old, new, FIXED)
        assert sum(new.balances) == sum(old.balances)
    expected = {"win": (110, 90), "tie": (100, 100), "loss": (90, 110)}[outcome(throw, answer)]
    assert states[-1].balances == expected


def test_the_responder_may_decline_and_nothing_moves():
    _, proposed, *_ = round_states("rock", "paper")
    declined = state(2, RpsData("Start", 1, None, None, None, None), (100, 100))
    assert valid_transition(proposed, declined, FIXED)
    assert "makes the balances 100 and 100, not 90 and 110" in transition_problem(
        proposed, declined._replace(balances=(90, 110)), FIXED
    )


def test_an_accept_that_raises_both_balances_is_refused():
    _, proposed, accepted, *_ = round_states("rock", "paper")
    inflated = accepted._replace(balances=(100, 110))
    assert transition_problem(proposed, inflated, FIXED) == (
        "RoundProposed -> RoundAccepted by participant 1 makes the balances 90 and 110, not 100 and 110"
    )


@pytest.mark.parametrize(
    ("name", "round_number", "player", "salt"),
    [
        ("another channel", 1, PROPOSER, SALT),
        (CHANNEL.hex(), 2, PROPOSER, SALT),
        (CHANNEL.hex(), 1, RESPONDER, SALT),
        (CHANNEL.hex(), 1, PROPOSER, bytes(32)),
    ],
)
def test_a_reveal_must_open_the_commitment_made_for_this_channel_round_and_proposer(name, round_number, player, salt):
    _, _, accepted, revealed, _ = round_states("rock", "paper")
    pledge = commitment(name, round_number, player, "rock", salt)
    accepted = accepted._replace(app=accepted.app._replace(commitment=pledge))
    revealed = revealed._replace(app=revealed.app._replace(commitment=pledge, salt=SALT))
    assert "is not what participant 0 committed to in round 1" in transition_problem(accepted, revealed, FIXED)


def test_a_reveal_of_another_throw_than_committed_is_refused():
    _, _, accepted, revealed, _ = round_states("rock", "scissors")
    lying = revealed._replace(app=revealed.app._replace(throw="paper"))
    assert "paper with this salt is not what participant 0 committed to" in transition_problem(accepted, lying, FIXED)


def test_no_round_is_proposed_when_a_player_cannot_cover_the_stake():
    start, proposed, *_ = round_states("rock", "paper", start=(195, 5))
    assert "cannot cover the stake of 10 chips" in transition_problem(start, proposed, FIXED)


def test_rounds_are_numbered_one_after_another():
    start, proposed, *_ = round_states("rock", "paper")
    skipped = proposed._replace(app=proposed.app._replace(round=3))
    assert transition_problem(start, skipped, FIXED) == "Start -> RoundProposed proposes round 1, not 3"


def test_a_reveal_cannot_follow_a_proposal():
    _, proposed, _, revealed, _ = round_states("rock", "paper")
    assert transition_problem(proposed, revealed._replace(turn=2), FIXED) == (
        "RoundProposed -> Reveal is not a move: after RoundProposed comes RoundAccepted or Start"
    )
