"""The xo-tp command line: version, help, and one-line errors with exit status 2."""

import pytest

from xo_core import __version__
from xo_tp.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    captured = capsys.readouterr()
    return exited.value.code, captured.out, captured.err


@pytest.fixture(autouse=True)
def no_machine_config(monkeypatch, tmp_path):
    monkeypatch.setenv("SAWTOOTH_HOME", str(tmp_path))
    monkeypatch.delenv("XO_TP_CONNECT", raising=False)


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_prints_its_version(capsys, flag):
    status, out, _ = run(capsys, flag)

    assert status == 0
    assert out == f"xo-tp {__version__}\n"


def test_help_names_every_setting(capsys):
    status, out, _ = run(capsys, "--help")

    assert status == 0
    for text in ("--connect", "--max-occupancy", "--config", "--verbose", "XO_TP_CONNECT", "xo.toml"):
        assert text in out


@pytest.mark.parametrize(
    ("argv", "complaint"),
    [
        (["-C", "validator:4004"], "--connect: 'validator:4004' is not a validator URL"),
        (["--connect", "tcp://validator:99999"], "has no valid port"),
        (["--max-occupancy", "many"], "'many' is not a whole number"),
        (["--max-occupancy", "-3"], "'-3' is not a whole number"),
        (["--max-occupancy", "0"], "max occupancy must be a whole number from 1"),
        (["--config", "/nonexistent/xo.toml"], "config file /nonexistent/xo.toml does not exist"),
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
    ],
)
def test_a_bad_flag_is_one_line_on_stderr_and_exit_status_2(capsys, argv, complaint):
    status, out, err = run(capsys, *argv)

    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("xo-tp: error: ")
    assert complaint in err


def test_a_bad_environment_variable_is_reported_by_name(capsys, monkeypatch):
    monkeypatch.setenv("XO_TP_CONNECT", "localhost")

    status, _, err = run(capsys)

    assert status == 2
    assert "XO_TP_CONNECT: 'localhost' is not a validator URL" in err
