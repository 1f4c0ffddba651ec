"""``xo aries play`` shows a thread id another agent chose escaped, its --thread hint pastes as one word, and a
refusal of the agent is said in game words."""

from __future__ import annotations

import argparse
import http.server
import io
import json
import threading

import pytest

from xo_cli import aries_play
from xo_cli.aries_admin import AdminClient, AgentRefused

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
    args = argparse.Namespace(admin="http://127.0.0.1:1", admin_api_key=None, connection="c1", me="X",
                              thread=HOSTILE, wait=1.0)
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
    args = argparse.Namespace(admin="http://127.0.0.1:1", admin_api_key=None, connection="c1", me="X",
                              thread="a/b c?d", wait=1.0)
    assert aries_play.play(args) == 0
    assert admin.paths == ["/tictactoe/games/a%2Fb%20c%3Fd"]


class RefusingAgent(http.server.BaseHTTPRequestHandler):
    """An admin API whose game is O's move and whose move route refuses as xo_aries' routes do (409, JSON)."""

    def do_GET(self) -> None:
        game = {"thread_id": "t1", "board": "XO------X", "state": "playing", "turn": "O", "me": "O",
                "moves": ["X:A1", "O:B1", "X:C3"]}  # fmt: skip
        self.answer(200, game)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        error = {"code": "already-occupied", "title": "Conflict", "message": "cell C3 is already occupied"}
        self.answer(409, {"error": error})

    def answer(self, status: int, document: dict) -> None:
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


def test_a_refused_move_is_said_in_game_words_not_as_http(monkeypatch, capsys):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RefusingAgent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setattr("sys.stdin", io.StringIO("C3\nq\n"))
        admin = f"http://127.0.0.1:{server.server_address[1]}"
        args = argparse.Namespace(admin=admin, admin_api_key=None, connection="c1", me="X",
                              thread="t1", wait=1.0)
        assert aries_play.play(args) == 0
    finally:
        server.shutdown()
        server.server_close()
    out = capsys.readouterr().out
    assert "Refused, nothing was sent: cell C3 is already occupied" in out
    must_not = ["POST", "/tictactoe", "409", "already-occupied", "Conflict"]
    assert [word for word in must_not if word in out] == []


def test_the_refusal_keeps_its_status_and_code_for_code(monkeypatch):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RefusingAgent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = AdminClient(f"http://127.0.0.1:{server.server_address[1]}")
        with pytest.raises(AgentRefused) as refused:
            client.post("/tictactoe/t1/move", {"cell": "C3"})
    finally:
        server.shutdown()
        server.server_close()
    assert (refused.value.message, refused.value.status, refused.value.code) == (
        "cell C3 is already occupied", 409, "already-occupied"
    )
