"""`xo play --vs ai` and `xo bot` on the network: the computer as a second player, on any REST API.

Both run as separate processes, as a player starts them. On a real network other games
may commit meanwhile; each test follows only its own game. The person's moves are the
lowest free space, which the computer (``perfect``) never loses to.
"""

from __future__ import annotations

import os
import subprocess
import threading

from tests.integration.players import COMMAND_SLACK_SECONDS, WAIT_SECONDS, Player, Xo, console_script

DEADLINE = WAIT_SECONDS * 10 + COMMAND_SLACK_SECONDS


def without_xo_environment() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if not name.startswith("XO_")}


def board_of(xo: Xo, game: str) -> str:
    """The game's board as the chain holds it (the lines speak grid notation; --json keeps the wire's form)."""
    shown = xo.run("show", game, "--json").json()
    assert isinstance(shown, dict)
    board = shown["board"]
    assert isinstance(board, str)
    return board


def test_a_game_against_the_computer_through_a_pipe_is_a_game_between_two_keys(
    xo: Xo, alice: Player, game: str
) -> None:
    play = subprocess.Popen(
        [console_script("xo"), "play", game, "--vs", "ai", "--seed", "1", "--url", xo.url,
         "--username", alice.name, "--key-dir", str(alice.key_dir)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
        env=without_xo_environment(),
    )  # fmt: skip
    deadline = threading.Timer(DEADLINE, play.kill)
    deadline.start()
    lines: list[str] = []
    try:
        assert play.stdin is not None and play.stdout is not None
        for line in play.stdout:
            lines.append(line.rstrip("\n"))
            if "your move as X" in line:
                play.stdin.write(f"{board_of(xo, game).index('-') + 1}\n")
                play.stdin.flush()
        code = play.wait()
        err = play.stderr.read() if play.stderr else ""
    finally:
        deadline.cancel()
        play.kill()
    assert code == 0, f"xo play ended with {code}: {err}"
    assert lines[-1].startswith(f"game '{game}' is over: ")
    assert "you won" not in lines[-1]
    ai_key = (alice.key_dir / "xo-ai.pub").read_text().strip()
    shown = xo.run("show", game, "--json").json()
    assert isinstance(shown, dict)
    assert (shown["player1"], shown["player2"]) == (alice.public_key, ai_key)
    assert shown["state"] in ("P2-WIN", "TIE")


def test_a_bot_answers_a_first_move_and_plays_to_the_end(xo: Xo, alice: Player, bob: Player, game: str) -> None:
    alice.create(game)
    alice.take(game, 1)
    bot = subprocess.Popen(
        [console_script("xo"), "bot", game, "--url", xo.url, "--username", bob.name, "--key-dir", str(bob.key_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1, env=without_xo_environment(),
    )  # fmt: skip
    deadline = threading.Timer(DEADLINE, bot.kill)
    deadline.start()
    try:
        assert bot.stdout is not None
        for line in bot.stdout:
            if " took " in line and "(X) to move" in line:
                alice.take(game, board_of(xo, game).index("-") + 1)
        code = bot.wait()
        err = bot.stderr.read() if bot.stderr else ""
    finally:
        deadline.cancel()
        bot.kill()
    assert code == 0, f"xo bot ended with {code}: {err}"
    shown = xo.run("show", game, "--json").json()
    assert isinstance(shown, dict)
    assert shown["player2"] == bob.public_key
    assert shown["state"] in ("P2-WIN", "TIE")
