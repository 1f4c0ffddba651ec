"""The plumbing every *-tp command shares: -q for a supervisor that reports the lifecycle itself."""

import logging

import pytest

from tp_runtime.command import RUNTIME_LOGGER, ProcessorCommand, build_parser, configure_logging

COMMAND = ProcessorCommand(
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
    parser = build_parser(COMMAND)
    assert parser.parse_args(["-q"]).quiet is True
    assert parser.parse_args([]).quiet is False
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["-q", "-v"])
    assert exit_.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
