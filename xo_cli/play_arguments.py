"""The command line of ``xo play`` and ``xo bot``: a game played live, by a person or by the computer.

Kept apart from :mod:`xo_cli.arguments` so that the two commands and the flags they
share (``--level``, ``--seed``) read as one unit.
"""

from __future__ import annotations

import argparse
from typing import Final

PLAY_EXAMPLES = """\
examples:
  xo play game1 --username alice             alice plays; bob joins with: xo play game1 --username bob
  xo play game2 --vs ai                      you play X against the computer (key xo-ai)
  xo play game3 --vs ai --level random --seed 7
  printf '5\\n1\\n9\\n' | xo play game4 --vs ai --seed 1    a script plays, one move per line"""

PLAY_KEYS = """\
moves: a space, 1-9 (row by row from the top left) or A1..C3 (column letter, row number); q leaves.
Leaving (q, Ctrl-D, Ctrl-C) leaves the game on the ledger: 'xo play NAME' goes on with it."""

BOT_EXAMPLES = """\
examples:
  xo bot --username robo game1 game2      robo plays its seat in both games, exits when both have ended
  xo bot --username robo --all            robo answers the first move of every game, until Ctrl-C"""


LEVELS: Final = ("perfect", "heuristic", "random")
"""``xo_client.ai.Level``'s values, spelt out: the parser is built for every command, and ``xo show`` must not
load the solver that ``xo_client.ai`` imports (a test keeps the two lists equal)."""


def seed_number(text: str) -> int:
    """``--seed N``: a whole number, so that a seeded game replays on any machine."""
    if not text.isascii() or not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    return int(text)


def ai_flags() -> argparse.ArgumentParser:
    """``--level`` and ``--seed``: how the computer plays."""
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument(
        "--level",
        choices=LEVELS,
        help="how well the computer plays: perfect (never loses; the default), heuristic (blocks and completes "
        "lines, does not see forks), random",
    )
    flags.add_argument(
        "--seed",
        type=seed_number,
        metavar="N",
        help="make the computer's choices repeatable: the same seed plays the same move in the same position",
    )
    return flags


def add_play_commands(subcommands: argparse._SubParsersAction, *, rest: argparse.ArgumentParser) -> None:
    """``xo play NAME [--vs ai]`` and ``xo bot [GAME...|--all]``."""
    ai = ai_flags()
    play = subcommands.add_parser(
        "play",
        parents=[rest, ai],
        help="play a game live: against another player, or the computer",
        description="Play the game NAME, creating it if it does not exist: the board, your move when it is your "
        "turn (submitted and waited for), the other side's moves as they commit, and the result. Two players "
        "each run 'xo play NAME' with their own --username; the first to take a space plays X. On a terminal the "
        "board is redrawn after every move; without one (a pipe), each line of input is a move, in order, and "
        "each event is one line of output. Exit status: 0 once the game is over (or deleted) or you leave, 1 if "
        "you cannot play it (both seats held by others), 130 on Ctrl-C.",
        epilog=f"{PLAY_KEYS}\n\n{PLAY_EXAMPLES}",
    )
    play.add_argument("name", metavar="NAME", help="name of the game")
    play.add_argument(
        "--vs",
        choices=["ai"],
        help="ai: the computer plays the other seat with its own key, xo-ai (made in the key directory on "
        "first use), through signed transactions like any player; you play X",
    )

    bot = subcommands.add_parser(
        "bot",
        parents=[rest, ai],
        help="let the computer play your seat in games",
        description="Play the seat of your key (--username) in the games named, with the computer's moves, "
        "following the ledger until each game has ended (exit 0). It takes a free seat when it is that seat's "
        "turn, so it answers a first move as O and opens a game nobody has joined as X; it never takes both "
        "seats, and skips games whose seats are both held by others. With --all, it answers every game whose "
        "first move is made and whose second seat is open, and runs until Ctrl-C (exit 130). One line per move.",
        epilog=BOT_EXAMPLES,
    )
    bot.add_argument("games", nargs="*", metavar="GAME", help="names of the games to play")
    bot.add_argument(
        "--all",
        action="store_true",
        help="answer every game, now and to come, whose first move is made and whose second seat is open",
    )
