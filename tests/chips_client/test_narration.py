"""What chips says to a person: names for keys, clock times with seconds left, the board as ``xo play`` draws it."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from chips_client import moves, narration
from chips_client.channels import OnChain, channel_transactions, nonce_of
from chips_tp import rps_app, xo_app
from chips_tp.channel import Fixed, channel_id
from chips_tp.channel_state import State
from chips_tp.family import channel_address
from chips_tp.ops import Cancel, Finalize, Open
from chips_tp.payload import encode_payload
from chips_tp.state import ChallengeRecord, Channel
from client_core.blocks import ChainBlock, ChainTransaction
from client_core.keys import KeyNames
from xo_client.notation import board_lines
from xo_core.signing import Signer

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


SPEC_WORDS = re.compile(r"XPlaying|OPlaying|PlayAgainMe|RoundProposed|RoundAccepted|Reveal|Start|Victory|Draw|"
                        r"participant [01]|\b\d{10}\b")  # fmt: skip


def channel(app: str, rounds: int = 3) -> Fixed:
    return Fixed((ALICE, BOB), app, 10, (50, 50), 60, nonce_of("duel", rounds))


def first_state(fixed: Fixed) -> State:
    initial = xo_app.INITIAL if fixed.app == "xo" else rps_app.INITIAL
    return State(channel_id(fixed), 0, False, initial, fixed.deposits)


def xo_states(fixed: Fixed, games: list[list[int]]) -> list[State]:
    """The states of xo games whose spaces are given in order, each followed by the rematch (none after the last)."""
    states = [first_state(fixed)]
    for number, spaces in enumerate(games):
        for space in spaces:
            states.append(moves.xo_next(states[-1], fixed, space))
        if number < len(games) - 1:
            states.append(moves.xo_next(states[-1], fixed, None))
            states.append(moves.xo_next(states[-1], fixed, None))
    return states


def rps_states(fixed: Fixed, rounds: list[tuple[str, str]]) -> list[State]:
    """The states of rps rounds: (the proposer's throw, the answer) each, then back to the start."""
    states = [first_state(fixed)]
    for throw, answer in rounds:
        salt = bytes(32)
        states.append(moves.rps_next(states[-1], fixed, throw, salt))
        states.append(moves.rps_next(states[-1], fixed, answer, None))
        states.append(moves.rps_next(states[-1], fixed, throw, salt))
        states.append(moves.rps_next(states[-1], fixed, None, None))
    return states


#: Alice (X) wins game 1 on the top row; bob (X, the loser asks to be X) and alice draw game 2.
XO_GAMES = [[1, 4, 2, 5, 3], [5, 1, 9, 3, 2, 8, 4, 6, 7]]


def test_an_xo_match_is_told_with_names_marks_the_stake_and_the_score():
    fixed = channel("xo")
    story = narration.Story(fixed, 3, BOB, NAMES)
    lines = [story.tell(state) for state in xo_states(fixed, XO_GAMES)]
    assert lines[0] == "turn 0: game 1 of 3, alice (X) to move"
    assert lines[1].startswith("turn 1: alice (X) took space 1 (A1); alice holds the stake now, +10 in this game (at")
    assert lines[1].endswith("you 40, alice 60; game 1 of 3, you (O) to move")
    assert lines[2] == ("turn 2: you (O) took space 4 (A2); you hold the stake now, +10 in this game: you 60, "
                        "alice 40; game 1 of 3, alice (X) to move")  # fmt: skip
    assert sum("goes to whoever moved last" in line for line in lines) == 1
    assert lines[5] == ("turn 5: alice (X) took space 3 (C1) and won game 1 of 3, keeping the stake (you 40, "
                        "alice 60); game 1 of 3 is over; you to ask for the next; alice leads 1-0")  # fmt: skip
    assert lines[6] == ("turn 6: you asked to play X in the next game; game 2 of 3 next, you to play X; "
                        "alice to agree; alice leads 1-0")  # fmt: skip
    assert lines[7] == "turn 7: alice agreed to a new game; game 2 of 3, you (X) to move; alice leads 1-0"
    assert lines[9].endswith("game 2 of 3, you (X) to move; alice leads 1-0")
    assert "game 2 of 3 is a draw, the stake goes back (you 40, alice 60)" in lines[-1]
    assert lines[-1].endswith("alice leads 1-0")
    assert not [line for line in lines if SPEC_WORDS.search(line)]
    assert [(game.number, game.winner, game.text) for game in story.games] == [
        (1, 0, "game 1 of 3: alice won"), (2, None, "game 2 of 3: a draw")]  # fmt: skip


def test_the_final_state_says_who_proposed_it_and_who_won_the_match():
    fixed = channel("xo", rounds=1)
    story = narration.Story(fixed, 1, ALICE, NAMES)
    states = xo_states(fixed, XO_GAMES[:1])
    story.follow(states)
    assert story.position(states[-1]) == "the match is over: bob to propose closing the channel; you lead 1-0"
    final = moves.final_of(states[-1])
    assert story.tell(final) == "turn 6: bob proposed to close the channel on you 60, bob 40: you won the match 1-0"


def test_how_a_match_ended_adds_its_result_its_score_or_nothing_before_any_game():
    fixed = channel("xo", rounds=3)
    story = narration.Story(fixed, 3, ALICE, NAMES)
    assert story.ending("finalized") == ""  # an opponent who never moved: no game to speak of
    story.follow(xo_states(fixed, XO_GAMES[:1]))
    assert story.ending("concluded") == "; you won the match 1-0"
    assert story.ending("finalized") == "; games played: you lead 1-0"


def test_an_rps_round_says_who_threw_what_and_who_won_it():
    fixed = channel("rps")
    story = narration.Story(fixed, 3, ALICE, NAMES)
    lines = [story.tell(state) for state in rps_states(fixed, [("rock", "scissors"), ("paper", "paper")])]
    assert lines[1] == "turn 1: you threw first in round 1 of 3, hidden until bob throws; round 1 of 3, bob to throw"
    assert lines[2].startswith("turn 2: bob threw scissors and holds your stake until you reveal (accepting")
    assert lines[2].endswith(": you 40, bob 60; round 1 of 3, you to reveal")
    assert lines[3] == ("turn 3: you revealed rock against bob's scissors: you won round 1 of 3 (you 60, bob 40); "
                        "round 1 of 3 is over; bob to go on; you lead 1-0")  # fmt: skip
    assert lines[4] == "turn 4: bob is ready for the next round; round 2 of 3 next, you to throw first; you lead 1-0"
    assert "against bob's paper: round 2 of 3 is a tie, the stake goes back (you 60, bob 40)" in lines[7]
    assert not [line for line in lines if SPEC_WORDS.search(line)]
    assert [game.throws for game in story.games] == [("rock", "scissors"), ("paper", "paper")]
    assert story.games[0].text == "round 1 of 3: you threw rock, bob scissors: you won"


def test_a_declined_round_and_a_stranger():
    fixed = Fixed((ALICE, STRANGER), "rps", 10, (50, 50), 60, nonce_of("duel", 0))
    story = narration.Story(fixed, 0, ALICE, NAMES)
    proposed = moves.rps_next(first_state(fixed), fixed, "rock", bytes(32))
    story.follow([first_state(fixed), proposed])
    declined = proposed._replace(turn=2, app=rps_app.INITIAL._replace(round=1))
    assert story.tell(declined) == "turn 2: 02c3c3... declined round 1; round 2 next, you to throw first"


def test_a_gap_is_told_as_the_position_reached_and_an_old_state_changes_nothing():
    fixed = channel("xo")
    states = xo_states(fixed, XO_GAMES[:1])
    story = narration.Story(fixed, 3, ALICE, NAMES)
    story.tell(states[0])
    assert story.tell(states[3]) == "turn 3: game 1 of 3, bob (O) to move"
    assert story.tell(states[2]) == "turn 3: game 1 of 3, bob (O) to move"
    story.tell(states[4])
    assert story.tell(states[5]).endswith("; you lead 1-0")


def test_the_validators_words_quote_a_unix_time_as_a_clock_time():
    moment = int(MORNING)
    said = f"the challenge on channel 7eadee1d runs until {moment}: 3 seconds left to answer it"
    assert narration.clock_times(said, [moment], MORNING, UTC) == (
        "the challenge on channel 7eadee1d runs until 04:31:07 UTC: 3 seconds left to answer it"
    )
    assert narration.clock_times(f"turn {moment}1", [moment], MORNING, UTC) == f"turn {moment}1"


def test_watch_names_the_channel_and_says_the_challenge_in_words_and_local_time():
    fixed = Fixed((ALICE, BOB), "xo", 10, (50, 50), 60, nonce_of("duel", 3))
    names = KeyNames({ALICE: "alice", BOB: "bob\x1b"})
    challenged = Channel(channel_id(fixed), fixed, "running", (True, True), 100, 3, None,
                         ChallengeRecord(2_000_000_042, BOB), None)  # fmt: skip
    line = narration.channel_line(challenged, "du\nel", ALICE, names, 2_000_000_000)
    start = "channel 'du\\x0ael' (xo with bob\\x1b): challenged by bob\\x1b at turn 3, to be answered before "
    assert line.startswith(start)
    assert line.endswith(" (42 s left)") and "2000000042" not in line
    closed = challenged._replace(status="closed", challenge=None, payout=(40, 60))
    said = narration.channel_line(closed, None, BOB, names, 0)
    assert said == f"channel {closed.id.hex()[:8]} (xo with alice): closed, paid you 60, alice 40"


def record(fixed: Fixed, **changed) -> Channel:
    running = Channel(channel_id(fixed), fixed, "running", (True, True), 100, 0, None, None, None)
    return running._replace(**changed)


def test_the_chains_record_in_words_for_each_status():
    fixed = channel("xo")
    story = narration.Story(fixed, 3, BOB, NAMES)
    assert story.status(record(fixed, status="funding", funded=(True, False)), 0) == "waiting for your deposit"
    assert story.status(record(fixed, turn=4), 0) == "running, its moves played off chain (the chain holds turn 4)"
    challenged = record(fixed, turn=4, challenge=ChallengeRecord(1000, BOB))
    assert story.status(challenged, 995).startswith("challenged by you at turn 4, to be answered before ")
    assert story.status(challenged, 995).endswith(" (5 s left)")
    assert story.status(record(fixed, status="closed", payout=(70, 30)), 0) == "closed, paid you 30, alice 70"


def on_chain(*ops: tuple[str, str]) -> list[OnChain]:
    return [OnChain(block, op, signer, f"{block:0128x}") for block, (op, signer) in enumerate(ops, 1)]


def test_the_channels_transactions_and_how_it_closed():
    story = narration.Story(channel("xo"), 3, ALICE, NAMES)
    agreed = on_chain(("open", ALICE), ("join", BOB), ("conclude", BOB))
    assert [story.transaction(t) for t in agreed] == [
        "block 1: you opened the channel, paying in your deposit (open)",
        "block 2: bob joined, paying in bob's deposit (join)",
        "block 3: bob closed the channel by agreement (conclude)",
    ]
    assert story.closing(agreed) == "by agreement"
    lost = on_chain(("open", ALICE), ("join", BOB), ("challenge", BOB), ("respond", ALICE), ("challenge", ALICE),
                    ("finalize", ALICE))  # fmt: skip
    assert story.closing(lost) == "finalized after your challenge went unanswered"
    assert narration.Story(channel("xo"), 3, BOB, NAMES).closing(lost) == "finalized after alice's challenge went " \
                                                                          "unanswered"  # fmt: skip
    assert story.closing(agreed[:2]) is None


def test_the_channels_transactions_are_found_in_the_blocks_by_their_outputs_oldest_first():
    address = channel_address(channel_id(channel("xo")))
    fixed = channel("xo")

    def committed(number: int, *ops: tuple[object, str]) -> ChainBlock:
        return ChainBlock(f"{number:0128x}", number, f"{number - 1:0128x}", tuple(
            ChainTransaction(f"{number}{index}", family, "1.0", ALICE, (where,), (where,), payload)
            for index, (op, where) in enumerate(ops)
            for family, payload in [("chips" if op is not None else "xo", b"" if op is None else encode_payload(op))]
        ))  # fmt: skip

    opening = Open(Signer.from_hex("00" * 31 + "02").public_key, "xo", 10, (50, 50), 60, fixed.nonce)  # on the curve
    blocks = [
        committed(3, (Finalize(channel_id(fixed)), address), (None, address)),
        committed(2, (Cancel(b"\1" * 32), "elsewhere")),
        committed(1, (opening, address), (Finalize(channel_id(fixed)), address)),
    ]
    found = channel_transactions(blocks, address)
    assert [(t.block, t.op, t.transaction_id) for t in found] == [(1, "open", "10"), (1, "finalize", "11"),
                                                                  (3, "finalize", "30")]  # fmt: skip
