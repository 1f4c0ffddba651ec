"""Every ``*-tp`` command's plumbing, shown once for each: version, help, one-line errors with exit status 2, -q.

``xo-tp``, ``rps-tp`` and ``chips-tp`` are each one call of :func:`tp_runtime.command.family_command`,
the shared command with a family's names (program, ``<PREFIX>_CONNECT``, ``<family>.toml``); the
same checks run against each.
"""

import logging
from dataclasses import dataclass

import pytest

import chips_tp.cli
import rps_tp.cli
import xo_tp.cli
from tp_runtime.command import RUNTIME_LOGGER, ProcessorCommand, build_parser, configure_logging, family_command
from xo_core import __version__


@dataclass(frozen=True)
class Command:
    main: object
    prog: str
    connect_env: str
    ready_file_env: str
    metrics_env: str
    config_name: str


COMMANDS = [
    Command(xo_tp.cli.main, "xo-tp", "XO_TP_CONNECT", "XO_TP_READY_FILE", "XO_TP_METRICS", "xo.toml"),
    Command(rps_tp.cli.main, "rps-tp", "RPS_TP_CONNECT", "RPS_TP_READY_FILE", "RPS_TP_METRICS", "rps.toml"),
    Command(
        chips_tp.cli.main, "chips-tp", "CHIPS_TP_CONNECT", "CHIPS_TP_READY_FILE", "CHIPS_TP_METRICS", "chips.toml"
    ),
]


@pytest.fixture(params=COMMANDS, ids=[command.prog for command in COMMANDS])
def command(request, monkeypatch, tmp_path) -> Command:
    """One processor command, with no machine config and none of its variables set."""
    monkeypatch.setenv("SAWTOOTH_HOME", str(tmp_path))
    for chosen in COMMANDS:
        monkeypatch.delenv(chosen.connect_env, raising=False)
        monkeypatch.delenv(chosen.metrics_env, raising=False)
    return request.param


def run(capsys, command: Command, *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        command.main(list(argv))
    captured = capsys.readouterr()
    return exited.value.code, captured.out, captured.err


def test_the_factory_derives_every_name_from_the_family_name():
    command = family_command("demo", "demo (a toy game)", list)

    assert (command.prog, command.config_name, command.env_prefix, command.logger) == (
        "demo-tp", "demo.toml", "DEMO_TP", "demo_tp",
    )  # fmt: skip
    assert command.description == "Run the demo (a toy game) transaction processor for a Sawtooth validator."
    assert (command.connect_env, command.ready_file_env) == ("DEMO_TP_CONNECT", "DEMO_TP_READY_FILE")
    assert command.handlers() == []


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_prints_its_version(capsys, command, flag):
    status, out, _ = run(capsys, command, flag)

    assert status == 0
    assert out == f"{command.prog} {__version__}\n"


def test_help_names_every_setting_with_the_commands_own_variables_and_file(capsys, command):
    status, out, _ = run(capsys, command, "--help")

    assert status == 0
    for text in ("--connect", "--max-occupancy", "--config", "--ready-file", "--metrics", "--verbose"):
        assert text in out
    for text in (command.connect_env, command.ready_file_env, command.metrics_env, command.config_name):
        assert text in out.replace("\n", "")


@pytest.mark.parametrize(
    ("argv", "complaint"),
    [
        (["-C", "validator:4004"], "--connect: 'validator:4004' is not a validator URL"),
        (["--connect", "tcp://validator:99999"], "has no valid port"),
        (["--max-occupancy", "many"], "'many' is not a whole number"),
        (["--max-occupancy", "-3"], "'-3' is not a whole number"),
        (["--max-occupancy", "0"], "max occupancy must be a whole number from 1"),
        (["--config", "/nonexistent/tp.toml"], "config file /nonexistent/tp.toml does not exist"),
        (["--metrics", "9400"], "--metrics: '9400' is not a metrics address"),
        (["--metrics", "127.0.0.1:99999"], "has no valid port"),
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
    ],
)
def test_a_bad_flag_is_one_line_on_stderr_and_exit_status_2(capsys, command, argv, complaint):
    status, out, err = run(capsys, command, *argv)

    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"{command.prog}: error: ")
    assert complaint in err


def test_a_bad_environment_variable_is_reported_by_name(capsys, monkeypatch, command):
    monkeypatch.setenv(command.connect_env, "localhost")

    status, _, err = run(capsys, command)

    assert status == 2
    assert f"{command.connect_env}: 'localhost' is not a validator URL" in err


def test_a_bad_metrics_variable_is_reported_by_name(capsys, monkeypatch, command):
    monkeypatch.setenv(command.metrics_env, "everywhere")

    status, _, err = run(capsys, command)

    assert status == 2
    assert f"{command.metrics_env}: 'everywhere' is not a metrics address" in err


def test_each_command_reads_only_its_own_variable_and_file(capsys, monkeypatch, tmp_path, command):
    other = next(chosen for chosen in COMMANDS if chosen is not command)
    monkeypatch.setenv(other.connect_env, "localhost")
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / other.config_name).write_text("frobnicate = 1\n")
    (tmp_path / "etc" / command.config_name).write_text("max_occupancy = 0\n")

    status, _, err = run(capsys, command)

    assert status == 2
    assert f"{tmp_path / 'etc' / command.config_name} max_occupancy: max occupancy must be" in err


# -q, for a supervisor that reports the lifecycle itself (xo-devnet runs its processors so).

DEMO = ProcessorCommand(
    prog="demo-tp", description="", config_name="demo.toml", env_prefix="DEMO_TP", logger="demo", handlers=list
)


@pytest.fixture
def loggers(monkeypatch):
    """Every logger configure_logging touches, put back as they were afterwards."""
    names = ["", "demo", RUNTIME_LOGGER, f"{RUNTIME_LOGGER}.core", f"{RUNTIME_LOGGER}.wire"]
    for name in names:
        logger = logging.getLogger(name)
        monkeypatch.setattr(logger, "level", logger.level)
    monkeypatch.setattr(logging.getLogger(), "handlers", [])
    return {name: logging.getLogger(name) for name in names}


def test_by_default_the_lifecycle_is_logged(loggers):
    configure_logging("demo", 0)
    assert loggers[f"{RUNTIME_LOGGER}.core"].getEffectiveLevel() == logging.INFO


def test_quiet_logs_warnings_and_errors_only(loggers):
    configure_logging("demo", 0, quiet=True)
    for name in ("demo", RUNTIME_LOGGER, f"{RUNTIME_LOGGER}.core"):
        assert loggers[name].getEffectiveLevel() == logging.WARNING


def test_quiet_is_a_flag_and_cannot_be_combined_with_verbose(capsys):
    parser = build_parser(DEMO)
    assert parser.parse_args(["-q"]).quiet is True
    assert parser.parse_args([]).quiet is False
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["-q", "-v"])
    assert exit_.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
