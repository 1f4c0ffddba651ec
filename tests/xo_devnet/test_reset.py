"""xo-devnet --reset: the ledger's files go, after a yes on a terminal; nothing else in the data dir is touched."""

import fcntl
import os

import pytest

from xo_devnet import reset
from xo_devnet.cli import main
from xo_devnet.reset import LEDGER_FILES, ResetRefused, ask_on_terminal, reset_chain
from xo_devnet.storage import DATABASE_NAME, LOCK_NAME, Storage


@pytest.fixture
def chain(tmp_path):
    """A data dir with a real (empty) ledger database, a file of the user's, and the lock file."""
    data_dir = tmp_path / "data"
    Storage.open(data_dir).close()
    (data_dir / "notes.txt").write_text("mine")
    return data_dir


def test_reset_deletes_the_ledger_files_only(chain):
    line = reset_chain(chain, confirm=None)
    assert line.startswith(f"deleted the chain in {chain}")
    assert line.endswith(": starting a new one")
    assert not any((chain / name).exists() for name in LEDGER_FILES)
    assert (chain / "notes.txt").read_text() == "mine"


def test_a_no_on_the_terminal_deletes_nothing(chain):
    asked = []

    def decline(question):
        asked.append(question)
        return False

    with pytest.raises(ResetRefused, match="--reset declined: nothing was deleted"):
        reset_chain(chain, confirm=decline)
    assert asked == [f"Delete the chain in {chain} (0 blocks) and start a new one? Player keys are kept. [y/N] "]
    assert (chain / DATABASE_NAME).exists()


def test_a_chain_another_devnet_runs_on_is_not_deleted(chain):
    lock = os.open(chain / LOCK_NAME, os.O_RDWR)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        with pytest.raises(ResetRefused, match="is in use by another xo-devnet: stop it first"):
            reset_chain(chain, confirm=None)
    finally:
        os.close(lock)
    assert (chain / DATABASE_NAME).exists()


def test_nothing_to_delete_is_said_and_is_no_error(tmp_path):
    line = reset_chain(tmp_path / "new", confirm=None)
    assert line == f"no chain in {tmp_path / 'new'} to delete: starting a new one"


@pytest.mark.parametrize(("typed", "yes"), [("y", True), ("YES\n", True), ("", False), ("n", False), ("sure", False)])
def test_only_y_or_yes_is_a_yes(monkeypatch, typed, yes):
    monkeypatch.setattr("builtins.input", lambda _question: typed)
    assert ask_on_terminal("Delete? ") is yes


def test_end_of_input_or_ctrl_c_at_the_question_is_a_no(monkeypatch):
    def interrupted(_question):
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", interrupted)
    assert ask_on_terminal("Delete? ") is False


def test_reset_with_ephemeral_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--reset", "--ephemeral"])
    assert exit_.value.code == 2
    assert "--ephemeral has none" in capsys.readouterr().err


def test_a_declined_reset_exits_1_before_starting_anything(chain, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr(reset, "ask_on_terminal", lambda _question: False)
    assert main(["--reset", "--data-dir", str(chain), "--rest-api", "127.0.0.1:0"]) == 1
    assert capsys.readouterr().err == "xo-devnet: --reset declined: nothing was deleted\n"
    assert (chain / DATABASE_NAME).exists()
