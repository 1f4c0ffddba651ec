"""``xo aries play --admin URL --connection ID``: one game at the terminal through an agent, like ``xo play``.

A controller over the admin routes of ``xo_aries`` (:mod:`xo_cli.aries_admin`): it starts a game
over the connection (or goes on with ``--thread``), shows the board, reads a cell when it is my
move (``A1``-``C3`` or ``1``-``9``; ``q`` leaves, ``abandon`` sends an outcome with a null winner)
and polls the game while the other agent moves. A move the agent refuses (409/400) is shown and
asked for again; nothing illegal is ever sent. Lines may come from a pipe, one per turn.

Exit codes: 0 once the game is over or the player leaves; 1 for a refusal it cannot go on from
(an unknown thread, a connection that is not ready); 3 if the admin API is unreachable; 4 if the
other player has not moved within ``--wait`` seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
import urllib.parse
from typing import Any, Final

from client_core.errors import InvalidInput, Rejected, TimedOut
from xo_cli.aries_admin import AdminClient
from xo_client.notation import BadSpace, board_lines, grid_name, parse_space
from xo_core.text import printable, shell_word

POLL: Final = 0.25
QUIT_WORDS: Final = frozenset(("q", "quit", "exit"))
ABANDON: Final = "abandon"


def cell_of(text: str) -> str:
    """The cell a typed line names (``B2`` or ``5``), in the protocol's spelling; ``InvalidInput`` otherwise."""
    try:
        return grid_name(parse_space(text.strip()))
    except BadSpace as bad:
        raise InvalidInput(str(bad)) from None


def in_path(thread: str) -> str:
    """A thread id as one segment of an admin route: another agent may choose one with ``/``, ``?`` or spaces."""
    return urllib.parse.quote(thread, safe="")


def result_line(game: dict[str, Any]) -> str:
    """The end of the game, from my side."""
    if game.get("abandoned"):
        return "The game was abandoned."
    winner = game.get("winner")
    if winner == "none":
        return "A draw."
    return "You won!" if winner == game.get("me") else f"{winner} won."


def show(game: dict[str, Any]) -> None:
    """The board and whose move it is."""
    print("\n".join(board_lines(str(game.get("board", "-" * 9)))))
    for problem in game.get("problems", [])[-1:]:
        print(f"({problem.get('direction')} problem-report: {problem.get('code')}: "
              f"{printable(str(problem.get('explanation')))})")  # fmt: skip
    if game.get("state") == "done":
        print(result_line(game))
    elif game.get("turn") == game.get("me"):
        print(f"You play {game.get('me')}. Your move (A1-C3 or 1-9, q to leave, abandon to give up):")
    else:
        print(f"Waiting for {game.get('turn')} to move...")
    sys.stdout.flush()


def read_line() -> str | None:
    """One line from standard input, None at its end."""
    line = sys.stdin.readline()
    return line.strip() if line else None


def opening(client: AdminClient, thread: str | None, connection: str | None, me: str) -> dict[str, Any]:
    """The game to play: ``--thread``'s, or a new one with ``connection`` as ``me`` (X's first cell is asked first)."""
    if thread:
        return client.get(f"/tictactoe/games/{in_path(thread)}")
    body: dict[str, Any] = {"connection_id": connection, "me": me}
    if me == "X":
        print("\n".join(board_lines("-" * 9)))
        print("You play X and open. Your first move (A1-C3 or 1-9):", flush=True)
        while True:
            line = read_line()
            if line is None or line.lower() in QUIT_WORDS:
                raise InvalidInput("no first move: the game was not started")
            try:
                body["move"] = cell_of(line)
                break
            except InvalidInput as bad:
                print(bad.message, flush=True)
    return client.post("/tictactoe/start", body)


def play(args: argparse.Namespace) -> int:
    """Play one game to its end (or until the player leaves)."""
    if not 0 < args.wait <= 86_400:
        raise InvalidInput("--wait must be more than 0 and at most 86400 seconds")
    client = AdminClient(args.admin, args.admin_api_key)
    game = opening(client, args.thread, args.connection, args.me)
    thread = game["thread_id"]
    print(f"Game {printable(thread)}")
    while True:
        show(game)
        if game.get("state") == "done":
            return 0
        if game.get("turn") == game.get("me"):
            line = read_line()
            if line is None or line.lower() in QUIT_WORDS:
                print(f"Left the game; go on later with --thread {shell_word(thread)}.")
                return 0
            try:
                if line.lower() == ABANDON:
                    game = client.post(f"/tictactoe/{in_path(thread)}/abandon")
                else:
                    game = client.post(f"/tictactoe/{in_path(thread)}/move", {"cell": cell_of(line)})
            except (InvalidInput, Rejected) as refused:
                print(f"Refused, nothing was sent: {refused.message}", flush=True)
            continue
        game = wait_for_turn(client, thread, game, args.wait)


def wait_for_turn(client: AdminClient, thread: str, game: dict[str, Any], wait: float) -> dict[str, Any]:
    """The game once the other player has moved (or it ended); ``TimedOut`` after ``wait`` seconds."""
    deadline = time.monotonic() + wait
    seen = (game.get("moves"), game.get("state"), len(game.get("problems", [])))
    while time.monotonic() < deadline:
        time.sleep(POLL)
        game = client.get(f"/tictactoe/games/{in_path(thread)}")
        if (game.get("moves"), game.get("state"), len(game.get("problems", []))) != seen:
            return game
    raise TimedOut(f"the other player has not moved within {wait:g} s; go on later with --thread {shell_word(thread)}")
