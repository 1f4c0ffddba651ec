"""The xo-devnet command line: flags, defaults and the one-line errors for bad values."""

import subprocess
import sys
from pathlib import Path

import pytest

from xo_devnet.cli import (
    BROKER_ENV,
    COMPONENT_ENDPOINT_ENV,
    FAMILIES_ENV,
    READY_FILE_ENV,
    REST_API_ENV,
    build_parser,
    default_data_dir,
)
from xo_devnet.launcher import PROCESSOR_FAMILIES, DevnetOptions


def parse(*argv: str):
    return build_parser().parse_args(list(argv))


def test_defaults_are_sawtooths_ports_on_loopback(monkeypatch):
    for name in (REST_API_ENV, COMPONENT_ENDPOINT_ENV, BROKER_ENV, READY_FILE_ENV, FAMILIES_ENV):
        monkeypatch.delenv(name, raising=False)
    args = parse()
    assert (args.broker, args.no_broker) == (("127.0.0.1", 1883), False)
    assert args.families == ()
    assert args.rest_api == ("127.0.0.1", 8008)
    assert args.component_endpoint == "tcp://127.0.0.1:4004"
    assert args.block_interval == 0.05
    assert args.max_subscribers == 256
    assert not args.ephemeral
    assert not args.no_tp
    assert (args.data_dir, args.key_dir, args.ready_file) == (None, None, None)


def test_environment_variables_stand_for_the_address_flags(monkeypatch):
    monkeypatch.setenv(REST_API_ENV, "127.0.0.1:0")
    monkeypatch.setenv(COMPONENT_ENDPOINT_ENV, "tcp://127.0.0.1:0")
    monkeypatch.setenv(READY_FILE_ENV, "/tmp/ready.json")
    monkeypatch.setenv(BROKER_ENV, "127.0.0.1:0")
    args = parse()
    assert args.broker == ("127.0.0.1", 0)
    assert parse("--broker", "[::1]:1884").broker == ("::1", 1884)
    assert args.rest_api == ("127.0.0.1", 0)
    assert args.component_endpoint == "tcp://127.0.0.1:0"
    assert args.ready_file == Path("/tmp/ready.json")
    assert parse("--rest-api", "127.0.0.1:9008").rest_api == ("127.0.0.1", 9008)


def test_no_broker_wins_over_a_broker_address_so_scripts_that_move_it_can_still_turn_it_off():
    args = parse("--broker", "127.0.0.1:0", "--no-broker")
    assert args.no_broker and args.broker == ("127.0.0.1", 0)


def test_a_bad_address_in_the_environment_is_a_usage_error(monkeypatch, capsys):
    monkeypatch.setenv(REST_API_ENV, "nowhere")
    with pytest.raises(SystemExit) as exit_:
        parse()
    assert exit_.value.code == 2
    assert "'nowhere' is not HOST:PORT" in capsys.readouterr().err


def test_families_to_accept_are_a_comma_separated_list_from_the_flag_or_the_environment(monkeypatch):
    monkeypatch.delenv(FAMILIES_ENV, raising=False)
    assert parse("--families", "intkey:1.0,mine:2.1").families == (("intkey", "1.0"), ("mine", "2.1"))
    monkeypatch.setenv(FAMILIES_ENV, "intkey:1.0")
    assert parse().families == (("intkey", "1.0"),)
    assert parse("--families", "").families == ()


def test_the_ledger_accepts_the_families_of_its_processors_and_those_added_and_no_others(tmp_path):
    options = DevnetOptions(
        data_dir=None, rest_host="127.0.0.1", rest_port=0, component_endpoint="tcp://127.0.0.1:0",
        block_interval=0.05, max_subscribers=256, run_processor=False, key_dir=tmp_path, ready_file=None,
        verbosity=0,
        families=(("intkey", "1.0"),),
    )  # fmt: skip
    assert PROCESSOR_FAMILIES == (("xo", "1.0"), ("rps", "2.0"), ("rps", "1.0"), ("chips", "1.0"))
    assert options.accepted_families == {
        ("xo", "1.0"), ("rps", "2.0"), ("rps", "1.0"), ("chips", "1.0"), ("intkey", "1.0"),
    }  # fmt: skip


def test_the_data_dir_defaults_to_the_xdg_data_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_data_dir() == tmp_path / "xo-devnet"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_data_dir() == Path("~/.local/share/xo-devnet").expanduser()


@pytest.mark.parametrize(
    ("text", "address"),
    [("0.0.0.0:80", ("0.0.0.0", 80)), ("localhost:0", ("localhost", 0)), ("[::1]:8008", ("::1", 8008))],
)
def test_the_rest_api_address_is_host_and_port(text, address):
    assert parse("--rest-api", text).rest_api == address


def test_every_flag_is_read():
    args = parse(
        "--data-dir", "/tmp/chain", "--component-endpoint", "tcp://127.0.0.1:0", "--block-interval", "0.2",
        "--no-tp", "--key-dir", "/tmp/keys", "--ready-file", "/tmp/ready.json", "-vv", "--max-subscribers", "3",
        "--processor-wait", "2.5", "--dependency-wait", "90",
    )  # fmt: skip
    assert args.data_dir == Path("/tmp/chain")
    assert args.component_endpoint == "tcp://127.0.0.1:0"
    assert args.block_interval == 0.2
    assert args.no_tp
    assert args.key_dir == Path("/tmp/keys")
    assert args.ready_file == Path("/tmp/ready.json")
    assert args.verbose == 2
    assert args.max_subscribers == 3
    assert (args.processor_wait, args.dependency_wait) == (2.5, 90.0)


def test_the_chips_challenge_floor_of_a_new_chain_defaults_to_ten_seconds_and_is_whole_seconds(capsys):
    assert parse().min_challenge == 10
    assert parse("--min-challenge", "1").min_challenge == 1
    for wrong in ("0", "1.5", "2592001"):
        with pytest.raises(SystemExit):
            parse("--min-challenge", wrong)
    assert "expected a whole number of seconds from 1 to 2592000, got '0'" in capsys.readouterr().err


def test_the_waits_default_to_a_minute_and_may_come_from_the_environment(monkeypatch):
    assert (parse().processor_wait, parse().dependency_wait) == (60.0, 60.0)
    monkeypatch.setenv("XO_DEVNET_PROCESSOR_WAIT", "5")
    monkeypatch.setenv("XO_DEVNET_DEPENDENCY_WAIT", "7.5")
    assert (parse().processor_wait, parse().dependency_wait) == (5.0, 7.5)
    assert parse("--processor-wait", "1").processor_wait == 1.0  # a flag wins


@pytest.mark.parametrize(
    ("argv", "complaint"),
    [
        (["--rest-api", "8008"], "is not HOST:PORT"),
        (["--rest-api", "host:99999"], "is not HOST:PORT"),
        (["--component-endpoint", "127.0.0.1:4004"], "is not a ZMQ endpoint"),
        (["--component-endpoint", "tcp://host:70000"], "is not a ZMQ endpoint"),
        (["--block-interval", "0"], "must be above 0"),
        (["--block-interval", "soon"], "is not a number of seconds"),
        (["--ephemeral", "--data-dir", "/tmp/x"], "not allowed with argument"),
        (["--families", "intkey"], "'intkey' is not FAMILY:VERSION"),
        (["--families", "xo:1.0,intkey 1.0"], "'intkey 1.0' is not FAMILY:VERSION"),
        (["--max-subscribers", "0"], "must be from 1 to 10000"),
        (["--max-subscribers", "many"], "is not a whole number"),
        (["--processor-wait", "0"], "must be above 0 and at most 86400 s"),
        (["--dependency-wait", "forever"], "is not a number of seconds"),
    ],
)
def test_bad_flags_are_one_line_errors_with_exit_code_2(argv, complaint, capsys):
    with pytest.raises(SystemExit) as exited:
        parse(*argv)
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert complaint in error
    assert "Traceback" not in error


def run_command(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "xo_devnet.cli", *argv], capture_output=True, text=True, timeout=60, check=False
    )


def test_version_and_help_answer_without_starting_anything():
    version = run_command("--version")
    assert version.returncode == 0
    assert version.stdout.startswith("xo-devnet ")
    helped = run_command("--help")
    assert helped.returncode == 0
    for flag in ("--data-dir", "--ephemeral", "--rest-api", "--component-endpoint", "--block-interval", "--no-tp",
                 "--broker", "--no-broker", "--key-dir", "--ready-file", "-v"):
        assert flag in helped.stdout
