"""HTTP Basic authentication for REST APIs behind a proxy: flags, environment, or a password prompt."""

import pytest

from xo_cli import session
from xo_cli.main import main


def run(capsys, *argv):
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def guarded(fake):
    fake.auth = ("player", "s3cret:with colon")
    fake.put_game("g1")
    return fake


def test_user_and_password_flags(guarded, capsys):
    credentials = ["--auth-user", "player", "--auth-password", "s3cret:with colon"]
    assert run(capsys, "show", "g1", "--json", "--url", guarded.url, *credentials)[0] == 0


def test_credentials_from_the_environment(guarded, monkeypatch, capsys):
    monkeypatch.setenv("XO_AUTH_USER", "player")
    monkeypatch.setenv("XO_AUTH_PASSWORD", "s3cret:with colon")
    assert run(capsys, "show", "g1", "--url", guarded.url)[0] == 0


def test_password_is_prompted_for_when_only_the_user_is_given(guarded, monkeypatch, capsys):
    prompts = []

    def fake_getpass(prompt):
        prompts.append(prompt)
        return "s3cret:with colon"

    monkeypatch.setattr(session.getpass, "getpass", fake_getpass)
    assert run(capsys, "show", "g1", "--url", guarded.url, "--auth-user", "player")[0] == 0
    assert prompts == [f"Password for player at {guarded.url}: "]


def test_no_password_at_the_prompt_is_invalid_input(guarded, monkeypatch, capsys):
    def no_input(_prompt):
        raise EOFError

    monkeypatch.setattr(session.getpass, "getpass", no_input)
    code, _, err = run(capsys, "show", "g1", "--url", guarded.url, "--auth-user", "player")
    assert code == 1
    assert err == "xo: error: no password given for 'player'\n"
    assert guarded.requests == []


def test_a_password_without_a_user_is_a_usage_error(fake, capsys):
    code, _, err = run(capsys, "show", "g1", "--url", fake.url, "--auth-password", "x")
    assert code == 2
    assert err == "xo: error: --auth-password needs --auth-user\n"


def test_moves_send_the_credentials_on_every_request(guarded, make_player, capsys):
    flags = [*make_player("alice").flags(guarded.url), "--auth-user", "player", "--auth-password", "s3cret:with colon"]
    code, _, _ = run(capsys, "take", "g1", "5", "--wait", "10", *flags)
    assert code == 0
    assert {method for method, _ in guarded.requests} == {"GET", "POST"}
