"""The ``chips`` command line: the contract's names and flags, and usage errors as exit code 2 with one line."""

from __future__ import annotations

import pytest

from chips_cli.arguments import parse
from chips_cli.main import COMMANDS, main


def test_every_command_of_the_contract_is_there():
    assert {"balance", "issue", "transfer", "open", "join", "play", "bot", "show", "list", "conclude", "challenge",
            "finalize", "watch"} <= set(COMMANDS)  # fmt: skip


def test_open_takes_the_terms_with_an_hour_to_answer_a_challenge_and_three_rounds_by_default():
    args = parse(["open", "duel", "--with", "bob", "--game", "rps", "--stake", "10", "--deposit", "50"])
    assert (args.channel, args.opponent, args.game, args.stake, args.deposit) == ("duel", "bob", "rps", 10, 50)
    assert (args.rounds, args.challenge) == (3, 3600)


def test_the_global_flags_go_before_the_command_as_for_xo_and_rps():
    args = parse(["--username", "alice", "--url", "http://127.0.0.1:9", "balance", "--json"])
    assert (args.username, args.url, args.format) == ("alice", "http://127.0.0.1:9", "json")


def test_bot_plays_at_a_level_through_a_broker_with_patience_if_asked():
    args = parse(["bot", "duel", "--level", "random", "--broker", "mqtt://127.0.0.1:1999", "--patience", "30"])
    assert (args.level, args.broker.port, args.patience) == ("random", 1999, 30.0)
    assert parse(["play", "duel"]).patience is None


@pytest.mark.parametrize(
    "argv",
    [
        ["open", "duel", "--with", "bob", "--game", "go", "--stake", "1", "--deposit", "1"],
        ["open", "duel", "--with", "bob", "--game", "xo", "--stake", "0", "--deposit", "1"],
        ["open", "duel", "--with", "bob", "--game", "xo", "--stake", "1", "--deposit", "1", "--rounds", "256"],
        ["open", "duel", "--with", "bob", "--game", "xo", "--stake", "1", "--deposit", "1", "--challenge", "0"],
        ["issue", "bob", "-5"],
        ["bot", "duel", "--level", "genius"],
        ["play", "duel", "--broker", "http://example.org"],
    ],
)
def test_a_malformed_command_line_is_a_usage_error(argv, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("chips: error:")
