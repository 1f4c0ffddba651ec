"""A command's shared flags become a Caller once: flag, then XO_* environment, then default; the password waits."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from client_core import caller as caller_module
from client_core.caller import Caller, Where, Who, key_name
from client_core.errors import InvalidInput, UsageError
from xo_core.keyfiles import DEFAULT_KEY_DIR

ENVIRONMENT = ("XO_URL", "XO_USERNAME", "XO_KEY_DIR", "XO_AUTH_USER", "XO_AUTH_PASSWORD")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ENVIRONMENT:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(caller_module.getpass, "getuser", lambda: "osuser")


def flags(**given: object) -> argparse.Namespace:
    """A Namespace as ``parse_command_line`` leaves it: every shared flag present, None when not given."""
    values: dict[str, object] = {
        "url": None, "username": None, "key_dir": None, "auth_user": None, "auth_password": None,
        "verbose": 0, "prog": "xo",
    }  # fmt: skip
    values.update(given)
    return argparse.Namespace(**values)


def test_defaults_are_the_local_rest_api_the_os_user_and_sawtooths_key_directory() -> None:
    caller = Caller.of(flags())
    assert caller.where == Where("http://127.0.0.1:8008", None, None, "xo", verbose=False)
    assert caller.who == Who("osuser", None, DEFAULT_KEY_DIR.expanduser())


def test_the_environment_beats_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XO_URL", "ledger:8008/")
    monkeypatch.setenv("XO_USERNAME", "bob")
    monkeypatch.setenv("XO_KEY_DIR", "/keys/env")
    caller = Caller.of(flags())
    who = caller.who
    assert (caller.where.url, who.username, who.key_dir) == ("http://ledger:8008", "bob", Path("/keys/env"))
    assert caller.who.username_flag is None


def test_flags_beat_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XO_URL", "http://env:1")
    monkeypatch.setenv("XO_USERNAME", "bob")
    monkeypatch.setenv("XO_KEY_DIR", "/keys/env")
    caller = Caller.of(flags(url="https://flag:2", username="alice", key_dir="/keys/flag"))
    who = caller.who
    assert (caller.where.url, who.username, who.key_dir) == ("https://flag:2", "alice", Path("/keys/flag"))
    assert caller.who.username_flag == "alice"


def test_an_empty_environment_variable_counts_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XO_URL", "")
    monkeypatch.setenv("XO_USERNAME", "")
    assert Caller.of(flags()).where.url == "http://127.0.0.1:8008"
    assert Caller.of(flags()).who.name() == "osuser"


def test_an_empty_url_flag_is_refused_not_read_as_the_default() -> None:
    with pytest.raises(UsageError, match=r"^argument --url: "):
        Where.of(flags(url=""))


def test_a_password_without_a_user_is_refused() -> None:
    with pytest.raises(UsageError, match=r"^--auth-password needs --auth-user$"):
        Where.of(flags(auth_password="x"))


def test_a_password_from_the_environment_alone_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XO_AUTH_PASSWORD", "x")
    assert Where.of(flags()).credentials() is None


def test_credentials_from_flags_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XO_AUTH_PASSWORD", "from-env")
    assert Where.of(flags(auth_user="player")).credentials() == ("player", "from-env")
    assert Where.of(flags(auth_user="player", auth_password="flag")).credentials() == ("player", "flag")


def test_the_password_is_asked_for_when_a_client_is_made_never_at_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    prompts: list[str] = []
    monkeypatch.setattr(caller_module.getpass, "getpass", lambda prompt: prompts.append(prompt) or "typed")
    where = Where.of(flags(auth_user="player", url="http://ledger:1"))
    assert prompts == []
    with where.rest_client() as client:
        assert client.auth == ("player", "typed")
    assert prompts == ["Password for player at http://ledger:1: "]


def test_no_answer_at_the_prompt_is_invalid_input(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_input(_prompt: str) -> str:
        raise EOFError

    monkeypatch.setattr(caller_module.getpass, "getpass", no_input)
    with pytest.raises(InvalidInput, match=r"^no password given for 'player'$"):
        Where.of(flags(auth_user="player")).credentials()


def test_the_user_name_is_judged_only_when_a_key_is_wanted() -> None:
    who = Who.of(flags(username="a/b"))
    assert who.own_public_key() is None
    with pytest.raises(InvalidInput, match=r"^'a/b' cannot be a key name$"):
        who.name()


def test_no_os_user_and_no_name_given_says_how_to_give_one(monkeypatch: pytest.MonkeyPatch) -> None:
    def nobody() -> str:
        raise KeyError("no passwd entry")

    monkeypatch.setattr(caller_module.getpass, "getuser", nobody)
    who = Who.of(flags())
    assert who.username is None
    with pytest.raises(InvalidInput, match=r"^cannot tell who you are: give --username or set XO_USERNAME$"):
        who.name()


def test_a_command_may_name_the_key_itself_as_keygen_does() -> None:
    assert Who.of(flags(username="alice"), "carol").name() == "carol"
    assert Who.of(flags(username="alice"), None).name() == "alice"


def test_own_public_key_reads_the_pub_file(tmp_path: Path) -> None:
    (tmp_path / "alice.pub").write_text("02" + "ab" * 32 + "\n", encoding="ascii")
    assert Who.of(flags(username="alice", key_dir=str(tmp_path))).own_public_key() == "02" + "ab" * 32
    assert Who.of(flags(username="bob", key_dir=str(tmp_path))).own_public_key() is None


def test_verbose_traces_each_request_under_the_commands_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert Where.of(flags()).tracer() is None
    trace = Where.of(flags(verbose=1, prog="rps")).tracer()
    assert trace is not None
    trace("GET /state -> 200")
    assert capsys.readouterr().err == "rps: GET /state -> 200\n"


def test_a_command_without_the_shared_flags_gets_the_defaults() -> None:
    caller = Caller.of(argparse.Namespace())
    assert caller.where.url == "http://127.0.0.1:8008"
    assert caller.who.username == "osuser"


def test_key_name_of_another_player_follows_the_same_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    assert key_name("carol") == "carol"
    monkeypatch.setenv("XO_USERNAME", "bob")
    assert key_name(None) == "bob"
    with pytest.raises(InvalidInput, match=r"^'\.\.' cannot be a key name$"):
        key_name("..")


def test_the_value_is_frozen() -> None:
    caller = Caller.of(flags())
    with pytest.raises(AttributeError):
        caller.who.key_dir = Path("/elsewhere")  # type: ignore[misc]
