"""main() turns every outcome into one line and an exit code, even the ones nobody planned for."""

from xo_cli import queries


def test_a_bug_is_one_line_and_exit_70_not_a_server_error(fake, monkeypatch, run):
    fake.put_game("g1")

    def broken(*_args):
        raise RuntimeError("renderer exploded")

    monkeypatch.setattr(queries.render, "game_card", broken)
    code, _, err = run("show", "g1", "--url", fake.url)
    assert code == 70
    assert err == "xo: error: internal error: RuntimeError: renderer exploded (run with -vv for the traceback)\n"


def test_ctrl_c_in_a_command_that_submits_nothing_just_says_interrupted(fake, monkeypatch, run):
    fake.put_game("g1")

    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(queries.render, "game_card", interrupted)
    assert run("show", "g1", "--url", fake.url) == (130, "", "xo: error: interrupted\n")
