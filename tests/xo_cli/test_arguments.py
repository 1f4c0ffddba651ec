"""Parsing the command line: the reference client's flags, our additions, one-line usage errors."""

import math

import pytest

from xo_cli.arguments import VERSION, parse
from xo_cli.main import main


def test_take_reads_name_and_space_and_defaults():
    args = parse(["take", "g1", "B2"])
    assert (args.command, args.name, args.space) == ("take", "g1", "B2")
    assert args.wait is None
    assert args.no_validate is False
    assert (args.url, args.username, args.key_dir, args.auth_user, args.auth_password) == (None,) * 5
    assert args.verbose == 0


def test_bare_wait_means_no_limit_and_a_number_is_seconds():
    assert parse(["create", "g1", "--wait"]).wait == math.inf
    assert parse(["create", "g1", "--wait", "2.5"]).wait == 2.5
    assert parse(["delete", "g1", "--wait", "0"]).wait == 0


@pytest.mark.parametrize("value", ["-1", "soon", "nan", "inf"])
def test_wait_refuses_what_is_not_a_finite_number_of_seconds(value, capsys):
    with pytest.raises(SystemExit) as exit_:
        parse(["create", "g1", "--wait", value])
    assert exit_.value.code == 2
    assert "argument --wait" in capsys.readouterr().err


def test_the_reference_clients_validation_flag_is_an_alias_of_no_validate():
    assert parse(["take", "g1", "5", "--disable-client-validation"]).no_validate is True
    assert parse(["take", "g1", "5", "--no-validate"]).no_validate is True


def test_json_is_short_for_format_json():
    assert parse(["list"]).format == "table"
    assert parse(["list", "--json"]).format == "json"
    assert parse(["show", "g1", "--format", "json"]).format == "json"


def test_verbose_counts_before_and_after_the_command():
    assert parse(["-v", "show", "g1", "-v"]).verbose == 2
    assert parse(["list", "-vv"]).verbose == 2


def test_common_flags_are_accepted_by_every_networked_command():
    for argv in (["create", "g"], ["take", "g", "1"], ["delete", "g"], ["list"], ["show", "g"]):
        args = parse([*argv, "--url", "http://h:1", "--username", "u", "--key-dir", "/k", "--auth-user", "a"])
        assert (args.url, args.username, args.key_dir, args.auth_user) == ("http://h:1", "u", "/k", "a")


def test_keygen_takes_an_optional_name_and_force():
    assert parse(["keygen"]).key_name is None
    args = parse(["keygen", "alice", "--key-dir", "/k", "--force"])
    assert (args.key_name, args.key_dir, args.force) == ("alice", "/k", True)


@pytest.mark.parametrize(
    "argv",
    [[], ["bogus"], ["take", "g1"], ["create"], ["show", "g1", "--format", "yaml"], ["list", "--wait"], ["take", "-x"]],
)
def test_usage_errors_exit_2_with_one_error_line(argv, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("xo: error: ")
    assert "--help" in lines[0]


def test_version_and_help_exit_0(capsys):
    assert main(["-V"]) == 0
    assert capsys.readouterr().out.strip() == VERSION
    assert main(["take", "--help"]) == 0
    help_text = capsys.readouterr().out
    for flag in ("--url", "--username", "--key-dir", "--auth-user", "--auth-password", "--wait", "--no-validate"):
        assert flag in help_text


def test_connection_and_key_flags_may_come_before_the_command():
    args = parse(["--url", "http://h:1", "--username", "alice", "--key-dir", "/k", "--auth-user", "u", "create", "g1"])
    given = (args.url, args.username, args.key_dir, args.auth_user, args.name)
    assert given == ("http://h:1", "alice", "/k", "u", "g1")


def test_a_flag_after_the_command_wins_over_the_same_flag_before_it():
    args = parse(["--username", "alice", "take", "g1", "5", "--username", "bob"])
    assert args.username == "bob"


def test_flags_before_the_command_play_a_move(fake, make_player, run):
    alice = make_player("alice")
    code, out, _ = run("--url", fake.url, "--username", "alice", "--key-dir", alice.key_dir, "create", "g1")
    assert code == 0
    assert out.startswith("Submitted create game 'g1'")
    assert fake.submitted[0].signer == alice.public_key


@pytest.mark.parametrize(("typed", "suggested"), [("craete", "create"), ("lsit", "list"), ("shwo", "show")])
def test_an_unknown_command_suggests_the_closest_one(capsys, typed, suggested):
    assert main([typed, "g1"]) == 2
    assert capsys.readouterr().err == (
        f"xo: error: unknown command '{typed}'; did you mean '{suggested}'? (see 'xo --help')\n"
    )


def test_an_unknown_command_like_none_lists_the_commands(capsys):
    assert main(["frobnicate"]) == 2
    assert capsys.readouterr().err == (
        "xo: error: unknown command 'frobnicate' (commands: create, take, delete, list, show, watch, history, status, "
        "keygen, aries, play, bot, web, ratings, chain) (see 'xo --help')\n"
    )


@pytest.mark.parametrize(
    ("argv", "command"),
    [(["take", "g1"], "take"), (["take", "g1", "5", "--bogus"], "take"), (["show"], "show"),
     (["list", "--json", "extra"], "list"), (["status"], "status"), (["keygen", "a", "b"], "keygen")],
)
def test_a_usage_error_points_at_the_help_of_its_subcommand(capsys, argv, command):
    assert main(argv) == 2
    assert capsys.readouterr().err.endswith(f" (see 'xo {command} --help')\n")


def test_help_shows_a_two_line_example(capsys):
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    assert "  xo create game1 --username alice --wait\n  xo take game1 5 --username alice --wait\n" in text
    assert "143 terminated (SIGTERM)" in text


def test_take_help_shows_how_the_board_is_numbered(capsys):
    assert main(["take", "--help"]) == 0
    text = capsys.readouterr().out
    assert "   1 | 2 | 3         A1 | B1 | C1\n" in text
    assert "   7 | 8 | 9         A3 | B3 | C3\n" in text
    assert "--both-seats" in text


def test_moves_take_json_and_status_takes_wait_and_json():
    assert parse(["take", "g1", "5", "--json"]).format == "json"
    assert parse(["create", "g1"]).format is None
    args = parse(["status", "a" * 128, "--wait", "5", "--json"])
    assert (args.batch_id, args.wait, args.format) == ("a" * 128, 5, "json")


def test_the_level_names_of_play_and_bot_are_the_computer_player_s_levels():
    from xo_cli.play_arguments import LEVELS  # noqa: PLC0415
    from xo_client.ai import Level  # noqa: PLC0415 - the parser itself must not import it

    assert tuple(level.value for level in Level) == LEVELS
