"""What a player who leaves a staked match is told, and what ``chips list`` says comes next: words a person acts on.

Each text is checked against what it must say (the channel's name, the chips at stake,
the deadline as a clock time, the command that goes on) and what it must never say
(Unix times, turn numbers of the chain's record, participant numbers, position names).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from chips_client import narration
from chips_client.next_steps import commands, left_lines, next_step
from chips_tp.state import ChallengeRecord
from tests.chips_client.test_narration import ALICE, BOB, NAMES, SPEC_WORDS, channel, first_state, record, xo_states

NOW = datetime(2026, 11, 27, 14, 0, 0, tzinfo=UTC).timestamp()


def at(seconds: int) -> str:
    """The clock time ``seconds`` after NOW as the machine's zone shows it (the texts use the reader's zone)."""
    return datetime.fromtimestamp(NOW + seconds).strftime("%H:%M:%S")
NEVER = re.compile(SPEC_WORDS.pattern + r"|turn \d+ on chain|\brunning, turn\b|nonce")
SAID = commands("offer-30481f8fbb2cc0ec-1", "--username dave")


def lines_of(**given) -> str:
    fixed = channel("xo")
    story = narration.Story(fixed, 3, BOB, NAMES)
    states = xo_states(fixed, [[1, 4]])
    story.follow(states)
    told = left_lines(story, given.get("record", record(fixed)), given.get("latest", states[-1]), how="Ctrl-C",
                      name="offer-30481f8fbb2cc0ec-1", said=SAID, now=NOW)  # fmt: skip
    text = "\n".join(told)
    assert not NEVER.search(text), text
    return text


def test_leaving_says_the_channel_the_chips_at_stake_the_deadline_by_the_clock_and_how_to_go_on():
    text = lines_of()
    for must in (
        "you left (Ctrl-C): channel 'offer-30481f8fbb2cc0ec-1' stays open on the chain",
        "game 1 of 3, alice (X) to move",
        "at stake: your deposit of 50 chips",
        "the latest state you hold pays you 60, alice 40",
        "if alice challenges you, your move must be on chain within 60 s",
        f"by {at(60)}",
        "to go on with it: chips play offer-30481f8fbb2cc0ec-1 --username dave",
        "chips watch --defend",
    ):
        assert must in text, (must, text)


def test_leaving_under_a_challenge_says_until_when_the_move_is_due():
    fixed = channel("xo")
    challenged = record(fixed, turn=2, challenge=ChallengeRecord(int(NOW) + 42, ALICE))
    text = lines_of(record=challenged)
    assert f"due: alice challenged you: your move must be on chain by {at(42)}" in text and "(42 s left)" in text
    assert "nothing yet" not in text
    mine = record(fixed, turn=2, challenge=ChallengeRecord(int(NOW) + 42, BOB))
    text = lines_of(record=mine)
    assert f"you challenged alice, who must answer by {at(42)}" in text
    assert "chips finalize offer-30481f8fbb2cc0ec-1 --username dave pays the channel out" in text


def test_leaving_a_closed_channel_or_with_the_chain_away_says_only_what_is_known():
    fixed = channel("xo")
    closed = lines_of(record=record(fixed, status="closed", payout=(40, 60)))
    assert closed == "you left (Ctrl-C): channel 'offer-30481f8fbb2cc0ec-1' is closed, paid you 60, alice 40"
    unknown = lines_of(record=None)
    assert "stays open on the chain" in unknown and "chips play offer-30481f8fbb2cc0ec-1" in unknown


def test_what_comes_next_names_whose_move_it_is_and_the_command():
    fixed = channel("xo")
    story = narration.Story(fixed, 3, ALICE, NAMES)
    states = xo_states(fixed, [[1, 4]])
    story.follow(states)
    mine = next_step(story, record(fixed), states[-1], SAID, NOW)
    assert mine == "your move: chips play offer-30481f8fbb2cc0ec-1 --username dave"
    theirs = next_step(story, record(fixed), states[-2], SAID, NOW)
    assert theirs.startswith("bob's move") and "chips challenge offer-30481f8fbb2cc0ec-1" in theirs
    assert "pay your deposit of 50 chips in: chips join" in next_step(
        story, record(fixed, status="funding", funded=(False, True)), None, SAID, NOW)  # fmt: skip
    assert next_step(story, record(fixed, status="funding", funded=(True, False)), None, SAID, NOW) == (
        "bob pays their deposit in, and the match begins")
    answer = next_step(story, record(fixed, turn=2, challenge=ChallengeRecord(int(NOW) + 300, BOB)), None, SAID, NOW)
    assert answer.startswith(f"your answer on chain, by {at(300)}") and "(5 min 0 s left)" in answer
    for text in (mine, theirs, answer):
        assert not NEVER.search(text), text


def test_the_status_says_where_the_match_stands_from_the_store():
    fixed = channel("xo")
    story = narration.Story(fixed, 3, BOB, NAMES)
    story.follow(xo_states(fixed, [[1, 4]]))
    assert story.status(record(fixed), NOW, xo_states(fixed, [[1, 4]])[-1]) == "running: game 1 of 3, alice (X) " \
        "to move"  # fmt: skip
    assert story.status(record(fixed), NOW, first_state(fixed)) == "running: game 1 of 3, alice (X) to move"
    assert story.status(record(fixed), NOW) == "running, its moves played off chain"
