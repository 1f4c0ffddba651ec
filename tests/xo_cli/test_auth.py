"""HTTP Basic authentication for REST APIs behind a proxy: flags, environment, or a password prompt."""

import subprocess
import sys

import pytest

from client_core import caller


@pytest.fixture
def guarded(fake):
    fake.auth = ("player", "s3cret:with colon")
    fake.put_game("g1")
    return fake


def test_user_and_password_flags(guarded, run):
    credentials = ["--auth-user", "player", "--auth-password", "s3cret:with colon"]
    assert run("show", "g1", "--json", "--url", guarded.url, *credentials)[0] == 0


def test_credentials_from_the_environment(guarded, monkeypatch, run):
    monkeypatch.setenv("XO_AUTH_USER", "player")
    monkeypatch.setenv("XO_AUTH_PASSWORD", "s3cret:with colon")
    assert run("show", "g1", "--url", guarded.url)[0] == 0


def test_password_is_prompted_for_when_only_the_user_is_given(guarded, monkeypatch, run):
    prompts = []

    def fake_getpass(prompt):
        prompts.append(prompt)
        return "s3cret:with colon"

    monkeypatch.setattr(caller.getpass, "getpass", fake_getpass)
    assert run("show", "g1", "--url", guarded.url, "--auth-user", "player")[0] == 0
    assert prompts == [f"Password for player at {guarded.url}: "]


def test_no_password_at_the_prompt_is_invalid_input(guarded, monkeypatch, run):
    def no_input(_prompt):
        raise EOFError

    monkeypatch.setattr(caller.getpass, "getpass", no_input)
    code, _, err = run("show", "g1", "--url", guarded.url, "--auth-user", "player")
    assert code == 1
    assert err == "xo: error: no password given for 'player'\n"
    assert guarded.requests == []


def test_without_a_terminal_to_ask_on_a_missing_password_is_a_usage_error(guarded):
    """As in CI: stdin is not a terminal and there is no controlling terminal either (a new session)."""
    done = subprocess.run(
        [sys.executable, "-m", "xo_cli.main", "show", "g1", "--url", guarded.url, "--auth-user", "player"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        start_new_session=True,
    )
    assert done.returncode == 2
    assert done.stderr == "xo: error: --auth-user needs a password: give --auth-password or set XO_AUTH_PASSWORD\n"
    assert guarded.requests == []


def test_ctrl_c_at_the_password_prompt_exits_130(guarded, monkeypatch, run):
    def interrupted(_prompt):
        raise KeyboardInterrupt

    monkeypatch.setattr(caller.getpass, "getpass", interrupted)
    assert run("show", "g1", "--url", guarded.url, "--auth-user", "player") == (130, "", "xo: error: interrupted\n")
    assert guarded.requests == []


def test_a_password_without_a_user_is_a_usage_error(fake, run):
    code, _, err = run("show", "g1", "--url", fake.url, "--auth-password", "x")
    assert code == 2
    assert err == "xo: error: --auth-password needs --auth-user\n"


def test_moves_send_the_credentials_on_every_request(guarded, make_player, run):
    flags = [*make_player("alice").flags(guarded.url), "--auth-user", "player", "--auth-password", "s3cret:with colon"]
    code, _, _ = run("take", "g1", "5", "--wait", "10", *flags)
    assert code == 0
    assert {method for method, _ in guarded.requests} == {"GET", "POST"}
