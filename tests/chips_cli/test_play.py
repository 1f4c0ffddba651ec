"""What ``chips play`` reads from a person, and what ``chips bot`` throws."""

from __future__ import annotations

import io
import random
from collections import Counter

import pytest

from chips_cli.play import BotChooser, PersonChooser
from client_core.errors import InvalidInput


def test_a_pipe_gives_one_move_per_line():
    lines = io.StringIO("5\nrock\n")
    person = PersonChooser(lines.readline, interactive=False)
    assert person.xo_space("X--------", "O") == 5
    assert person.rps_throw() == "rock"


def test_from_a_pipe_a_taken_space_is_an_error_and_at_a_terminal_it_is_asked_again(capsys):
    with pytest.raises(InvalidInput, match="not a free space"):
        PersonChooser(io.StringIO("1\n").readline, interactive=False).xo_space("X--------", "O")
    asked = PersonChooser(io.StringIO("1\n0\n9\n").readline, interactive=True)
    assert asked.xo_space("X--------", "O") == 9
    assert capsys.readouterr().out.count("not a free space") == 2


def test_the_end_of_the_input_before_the_end_of_the_match_is_an_error():
    with pytest.raises(InvalidInput, match="input ended"):
        PersonChooser(io.StringIO("").readline, interactive=False).rps_throw()


def test_the_bot_plays_xo_with_xos_ai_and_takes_a_win():
    assert BotChooser("perfect").xo_space("XX-OO----", "X") == 3


def test_at_rps_every_level_throws_at_random():
    for level in ("perfect", "heuristic", "random"):
        bot = BotChooser(level, random.Random(7))
        counts = Counter(bot.rps_throw() for _ in range(900))
        assert set(counts) == {"rock", "paper", "scissors"} and min(counts.values()) > 240
