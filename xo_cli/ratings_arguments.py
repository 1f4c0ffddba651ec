"""The command line of ``xo ratings``: which games, how many players, JSON for scripts.

Kept apart from :mod:`xo_cli.arguments`, as ``web`` and ``aries`` are, so the command's
flags read as one unit.
"""

from __future__ import annotations

import argparse

RATINGS_EXAMPLES = """\
examples:
  xo ratings                  every player, every game: XO, rps and staked matches
  xo ratings --game xo --top 10
  xo ratings --json           full keys, the numbers to six places, the block read to"""


def positive(text: str) -> int:
    """``--top N``: a whole number from 1."""
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1, got {text!r}")
    return int(text)


def add_ratings_command(
    subcommands: argparse._SubParsersAction, rest: argparse.ArgumentParser, output: argparse.ArgumentParser
) -> None:
    """``xo ratings``: the table of every player's rating, read from the chain."""
    ratings = subcommands.add_parser(
        "ratings",
        parents=[rest, output],
        help="every player's rating, computed from the chain",
        description="Rate every player from the games on the chain alone: XO games by their outcome and seats, rps "
        "games by their results, staked matches (chips channels) by the state each closed on; openskill's "
        "Plackett-Luce model, every game one update in chain order. The same chain gives the same table on any "
        "machine. The first read follows the chain from its genesis block and is cached ($XDG_CACHE_HOME/xo/ratings); "
        "later reads take only the blocks since. docs/ratings.md says what counts as a game.",
        epilog=RATINGS_EXAMPLES,
    )
    ratings.add_argument(
        "--game", choices=("xo", "rps", "chips"), help="rate only these games (chips: staked matches); default: all"
    )
    ratings.add_argument("--top", type=positive, metavar="N", help="only the first N players")
