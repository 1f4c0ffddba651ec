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
