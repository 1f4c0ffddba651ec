"""What ``chips play`` reads from a person (:mod:`chips_cli.terminal`), and what ``chips bot`` throws."""

from __future__ import annotations

import io
import queue
import random
import time
from collections import Counter

import pytest

from chips_cli import play
from chips_cli.terminal import PersonChooser
from chips_client.asking import Question
from chips_client.computer import Computer
from client_core.broker import BrokerUnreachable
from client_core.errors import InvalidInput, TerminateRequest, Unavailable
from xo_client.notation import board_lines


def answered(person: PersonChooser, question: Question, seconds: float = 10.0) -> int | str:
    """Ask, then poll as the match loop does (the reader is a thread of its own) until an answer comes."""
    person.ask(question)
    ends = time.monotonic() + seconds
    while (answer := person.answer()) is None:
        assert time.monotonic() < ends, "no answer"
        time.sleep(0.01)
    return answer


XO = Question(2, "xo", "X--------", "O")
RPS = Question(1, "rps")


def test_a_pipe_gives_one_move_per_line():
    person = PersonChooser(io.StringIO("5\nrock\n").readline, interactive=False)
    assert answered(person, XO) == 5
    assert answered(person, RPS) == "rock"


def test_from_a_pipe_a_taken_space_is_an_error_and_at_a_terminal_it_is_asked_again(capsys):
    with pytest.raises(InvalidInput, match="not a free space"):
        answered(PersonChooser(io.StringIO("1\n").readline, interactive=False), XO)
    assert answered(PersonChooser(io.StringIO("1\n0\n9\n").readline, interactive=True), XO) == 9
    assert capsys.readouterr().out.count("not a free space") == 2


def test_the_end_of_the_input_before_the_end_of_the_match_is_an_error():
    with pytest.raises(InvalidInput, match="input ended"):
        answered(PersonChooser(io.StringIO("").readline, interactive=False), RPS)


def test_the_match_never_waits_on_the_keyboard_a_challenge_is_counted_down_and_a_withdrawn_question_says_why(capsys):
    typed: queue.Queue[str] = queue.Queue()
    now = [1_000.0]
    person = PersonChooser(typed.get, interactive=True, clock=lambda: now[0])
    urgent = XO._replace(deadline=1_060.0, computer_at=1_030.0)
    started = time.monotonic()
    person.ask(urgent)
    assert person.answer() is None and time.monotonic() - started < 1  # nothing typed: the loop goes on
    shown = capsys.readouterr().out
    assert "answer the challenge" in shown and "(60 s left)" in shown and "[60 s left]" in shown
    assert "1060" not in shown and "1030" not in shown
    now[0] = 1_010.0
    assert person.answer() is None
    assert "[50 s left]" in capsys.readouterr().out  # the prompt line redrawn with the seconds left
    person.withdraw("the computer played this move for you")
    assert "no longer asked: the computer played this move for you" in capsys.readouterr().out
    assert person.answer() is None
    typed.put("9\n")
    assert answered(person, XO) == 9


def test_the_bot_plays_xo_with_xos_ai_and_takes_a_win():
    assert Computer("perfect").xo_space("XX-OO----", "X") == 3


def test_at_rps_every_level_throws_at_random():
    for level in ("perfect", "heuristic", "random"):
        bot = Computer(level, random.Random(7))
        counts = Counter(bot.rps_throw() for _ in range(900))
        assert set(counts) == {"rock", "paper", "scissors"} and min(counts.values()) > 240


def test_at_a_terminal_the_xo_prompt_draws_the_grid_xo_play_draws(capsys):
    assert answered(PersonChooser(io.StringIO("5\n").readline, interactive=True), XO) == 5
    shown = capsys.readouterr().out
    assert shown == "\n".join(board_lines("X--------")) + "\nyour O (1-9): "



def test_a_read_while_the_rest_api_is_away_waits_for_it_saying_so_once(capsys):
    """``chips play`` or ``bot`` started while the ledger is away: it waits, backing off, instead of exiting."""
    answers = [Unavailable("cannot reach the REST API at http://127.0.0.1:8008: Connection refused")] * 4 + ["read"]
    slept: list[float] = []

    def read() -> str:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert play.patiently(read, sleep=slept.append) == "read"
    assert slept == [0.5, 1.0, 2.0, 4.0]
    said = capsys.readouterr().out.splitlines()
    assert said == ["cannot reach the REST API at http://127.0.0.1:8008: Connection refused; retrying",
                    "the REST API answers again"]  # fmt: skip


def test_a_broker_error_is_not_waited_for_by_the_chain_reads():
    def read() -> str:
        raise BrokerUnreachable("cannot reach the broker at mqtt://127.0.0.1:1883")

    with pytest.raises(BrokerUnreachable):
        play.patiently(read, sleep=lambda _s: None)


@pytest.mark.parametrize(("interrupt", "how", "code"), [(KeyboardInterrupt, "Ctrl-C", 130),
                                                        (TerminateRequest, "SIGTERM", 143)])  # fmt: skip
def test_watch_says_it_is_watching_and_what_it_does_and_stops_with_a_clear_line(table, monkeypatch, interrupt, how,
                                                                                  code):  # fmt: skip
    table.player("bob")

    def stop(_seconds: float) -> None:
        raise interrupt

    monkeypatch.setattr(play.time, "sleep", stop)
    stopped, out, err = table.run("bob", "watch", "--defend", "--poll", "1")
    assert (stopped, err) == (code, "")
    for must in ("watching your channels on the chain every 1 s, answering every challenge against you with the "
                 "latest state in your store; Ctrl-C stops", "you take part in no channel yet",
                 f"stopped watching ({how}): challenges against you are no longer answered"):  # fmt: skip
        assert must in out, out
    assert "error" not in out
