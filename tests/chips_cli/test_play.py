"""What ``chips play`` reads from a person, and what ``chips bot`` throws."""

from __future__ import annotations

import io
import random
from collections import Counter

import pytest

from chips_cli.play import PersonChooser
from chips_client.computer import Computer
from client_core.errors import InvalidInput
from xo_client.notation import board_lines


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
    assert Computer("perfect").xo_space("XX-OO----", "X") == 3


def test_at_rps_every_level_throws_at_random():
    for level in ("perfect", "heuristic", "random"):
        bot = Computer(level, random.Random(7))
        counts = Counter(bot.rps_throw() for _ in range(900))
        assert set(counts) == {"rock", "paper", "scissors"} and min(counts.values()) > 240


def test_at_a_terminal_the_xo_prompt_draws_the_grid_xo_play_draws(capsys):
    assert PersonChooser(io.StringIO("5\n").readline, interactive=True).xo_space("X--------", "O") == 5
    shown = capsys.readouterr().out
    assert shown == "\n".join(board_lines("X--------")) + "\nyour O (1-9): "

