"""main() turns every outcome into one line and an exit code, even the ones nobody planned for."""

from xo_cli import queries
from xo_cli.main import main


def test_an_unexpected_failure_is_one_line_and_exit_3(fake, monkeypatch, capsys):
    fake.put_game("g1")

    def broken(*_args):
        raise RuntimeError("renderer exploded")

    monkeypatch.setattr(queries.render, "game_card", broken)
    assert main(["show", "g1", "--url", fake.url]) == 3
    err = capsys.readouterr().err
    assert err == "xo: error: unexpected RuntimeError: renderer exploded (run with -vv for details)\n"


def test_ctrl_c_exits_130_and_warns_that_a_submitted_batch_may_still_commit(fake, monkeypatch, capsys):
    fake.put_game("g1")

    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(queries.render, "game_card", interrupted)
    assert main(["show", "g1", "--url", fake.url]) == 130
    assert "interrupted" in capsys.readouterr().err
