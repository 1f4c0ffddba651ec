"""``xo aries play`` shows a thread id another agent chose escaped, and its --thread hint pastes as one word."""

from __future__ import annotations

import argparse
import io

import pytest

from xo_cli import aries_play

HOSTILE = "game 1\x1b[2J"


class OneGame:
    """An admin API holding one game, in the state ``game``."""

    def __init__(self, url: str, api_key: str | None, game: dict) -> None:
        self.game = game
        self.paths: list[str] = []

    def get(self, path: str) -> dict:
        self.paths.append(path)
        return self.game


def play(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], game: dict, stdin: str) -> str:
    monkeypatch.setattr(aries_play, "AdminClient", lambda url, key: OneGame(url, key, game))
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    args = argparse.Namespace(admin="http://127.0.0.1:1", admin_api_key=None, thread=HOSTILE, wait=1.0)
    assert aries_play.play(args) == 0
    return capsys.readouterr().out


def test_a_hostile_thread_id_is_shown_escaped(monkeypatch, capsys):
    game = {"thread_id": HOSTILE, "board": "XXXOO----", "state": "done", "winner": "X", "me": "X"}
    out = play(monkeypatch, capsys, game, "")
    assert "\x1b" not in out
    assert out.splitlines()[0] == "Game game 1\\x1b[2J"
    assert "You won!" in out


def test_leaving_names_the_thread_as_one_shell_word(monkeypatch, capsys):
    game = {"thread_id": HOSTILE, "board": "X--------", "state": "playing", "turn": "O", "me": "O"}
    out = play(monkeypatch, capsys, game, "q\n")
    assert "\x1b" not in out
    assert out.splitlines()[-1] == "Left the game; go on later with --thread 'game 1\\x1b[2J'."


def test_a_thread_id_with_a_slash_a_space_and_a_question_mark_is_one_path_segment(monkeypatch, capsys):
    game = {"thread_id": "a/b c?d", "board": "XXXOO----", "state": "done", "winner": "X", "me": "X"}
    admin = OneGame("http://127.0.0.1:1", None, game)
    monkeypatch.setattr(aries_play, "AdminClient", lambda url, key: admin)
    args = argparse.Namespace(admin="http://127.0.0.1:1", admin_api_key=None, thread="a/b c?d", wait=1.0)
    assert aries_play.play(args) == 0
    assert admin.paths == ["/tictactoe/games/a%2Fb%20c%3Fd"]
