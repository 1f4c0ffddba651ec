"""What chips says to a person: names for keys, clock times with seconds left, the board as ``xo play`` draws it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from chips_client import narration
from client_core.keys import KeyNames
from xo_client.notation import board_lines

ALICE = "02" + "a1" * 32
BOB = "03" + "b2" * 32
STRANGER = "02" + "c3" * 32
NAMES = KeyNames({ALICE: "alice", BOB: "bob", STRANGER + "x": "nobody"})
CET = timezone(timedelta(hours=1), "CET")
#: 2026-11-27 04:31:07 UTC, a Friday morning
MORNING = datetime(2026, 11, 27, 4, 31, 7, tzinfo=UTC).timestamp()


def test_a_player_is_you_their_key_name_or_a_short_key():
    assert narration.player(ALICE, ALICE, NAMES) == "you"
    assert narration.player(ALICE, BOB, NAMES) == "alice"
    assert narration.player(ALICE, None, NAMES) == "alice"
    assert narration.player(STRANGER, ALICE, NAMES) == "02c3c3..."


def test_a_key_name_is_escaped():
    hostile = KeyNames({BOB: "bob\x1b[2J\nalice"})
    shown = narration.player(BOB, ALICE, hostile)
    assert "\x1b" not in shown and "\n" not in shown and shown.startswith("bob")


def test_the_verb_agrees_with_you():
    assert narration.verb("you", "lead", "leads") == "you lead"
    assert narration.verb("alice", "lead", "leads") == "alice leads"


def test_a_clock_time_is_local_with_its_zone_and_the_date_only_on_another_day():
    assert narration.clock_time(MORNING, MORNING - 30, UTC) == "04:31:07 UTC"
    assert narration.clock_time(MORNING, MORNING - 30, CET) == "05:31:07 CET"
    tomorrow = MORNING + 86400
    assert narration.clock_time(tomorrow, MORNING, UTC) == "2026-11-28 04:31:07 UTC"


def test_the_machine_zone_is_used_when_none_is_given_and_no_unix_time_shows():
    shown = narration.clock_time(MORNING, MORNING)
    assert str(int(MORNING)) not in shown
    assert shown.startswith(datetime.fromtimestamp(MORNING).strftime("%H:%M:%S"))


def test_seconds_left_round_up_and_stop_at_zero():
    assert narration.seconds_left(100.2, 58.0) == 43
    assert narration.seconds_left(100.0, 100.0) == 0
    assert narration.seconds_left(100.0, 250.0) == 0


def test_a_deadline_says_the_clock_time_and_the_seconds_left_or_since():
    assert narration.deadline_text(MORNING, MORNING - 42, UTC) == "04:31:07 UTC (42 s left)"
    assert narration.deadline_text(MORNING, MORNING - 3541, UTC) == "04:31:07 UTC (59 min 1 s left)"
    assert narration.deadline_text(MORNING, MORNING + 3, UTC) == "04:31:07 UTC (passed 3 s ago)"


def test_the_grid_is_the_one_xo_play_draws():
    board = "X---O---X"
    assert narration.grid(board) == "\n".join(board_lines(board))
    drawn = narration.grid(board).splitlines()
    assert drawn[0].split() == ["A", "B", "C"]
    assert drawn[1].split() == ["1", "X", "|", "2", "|", "3"]
    assert drawn[3].split() == ["2", "4", "|", "O", "|", "6"]


def test_the_xo_prompt_draws_the_grid_then_asks_for_the_mark():
    prompt = narration.xo_prompt("X--------", "O")
    assert prompt.startswith(narration.grid("X--------")) and prompt.endswith("your O (1-9): ")
