"""The ``xo`` command line: the reference Sawtooth client's commands and flags, plus ours.

Existing scripts written for the reference ``xo`` keep working: same
subcommands, same flags (``--disable-client-validation`` is accepted as the old
spelling of ``--no-validate``). The flags shared with every client command come
from :mod:`client_core.arguments`; this module adds XO's commands.
"""

from __future__ import annotations

import argparse

from client_core.arguments import (
    CommandParser,
    command_line,
    keygen_parser,
    parse_command_line,
    status_parser,
    wait_flags,
)
from xo_cli.aries_arguments import add_aries_commands, full_command
from xo_cli.chain_arguments import add_chain_commands, full_chain_command
from xo_cli.play_arguments import add_play_commands
from xo_cli.ratings_arguments import add_ratings_command
from xo_cli.web_arguments import add_web_command
from xo_core import __version__

VERSION = f"xo (xo-sawtooth) {__version__}"

EXAMPLE = """\
example (alice is X; bob joins as O by taking a space):
  xo create game1 --username alice --wait
  xo take game1 5 --username alice --wait"""

EXIT_CODES = """\
exit codes:
  0    done: committed (or, without --wait, submitted); a query answered; a watched game ended
  1    rejected, or invalid input
  2    usage error
  3    connection or server error
  4    stopped waiting before the batch was decided
  70   internal error (a bug in xo)
  130  interrupted (Ctrl-C); 143 terminated (SIGTERM)"""

BOARD = """\
spaces, by number or by column and row:
   1 | 2 | 3         A1 | B1 | C1
  ---+---+---       ----+----+----
   4 | 5 | 6    =    A2 | B2 | C2
  ---+---+---       ----+----+----
   7 | 8 | 9         A3 | B3 | C3"""


WATCH_EXAMPLES = """\
examples:
  xo watch game1            the board, then a line per move, until the game ends
  xo watch game1 --json     one JSON object per line: the block, the move, the game after it
  xo watch                  every game: created, moves, deleted (Ctrl-C stops)"""

HISTORY_EXAMPLES = """\
examples:
  xo history game1
  xo history game1 --json
  xo history game1 --format aries --game 2"""


def game_number(text: str) -> int:
    """``--game N``: which of a name's games, counted from 1."""
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a game number from 1, got {text!r}")
    return int(text)


def build_parser() -> CommandParser:
    """The whole command line, with flags shared through parent parsers so every command spells them alike."""
    line = command_line(
        prog="xo",
        description="Play tic-tac-toe on a Hyperledger Sawtooth network by sending XO transactions. "
        "'xo COMMAND --help' tells more about each command.",
        epilog=f"{EXAMPLE}\n\n{EXIT_CODES}",
        version=VERSION,
    )
    parser, subcommands = line.parser, line.subcommands
    rest, move, output, json_output = line.rest, line.move, line.output, line.json_output

    create = subcommands.add_parser(
        "create",
        parents=[rest, move, json_output],
        help="create a new game",
        description="Send a transaction creating the game NAME; it fails if NAME already exists.",
    )
    create.add_argument("name", metavar="NAME", help="unique name of the new game")

    take = subcommands.add_parser(
        "take",
        parents=[rest, move, json_output],
        help="take a space in a game",
        description="Send a transaction placing your mark on SPACE of game NAME. The first to take a space "
        "is player 1 (X), the next player 2 (O).",
        epilog=BOARD,
    )
    take.add_argument("name", metavar="NAME", help="name of the game")
    take.add_argument(
        "space", metavar="SPACE", help="1-9 (row by row from the top left) or A1-C3 (column letter, row number)"
    )
    take.add_argument(
        "--both-seats",
        action="store_true",
        help="allow taking player 2's seat with the key that holds player 1's (you play both sides; "
        "without this flag xo refuses, as nobody else could ever join)",
    )

    delete = subcommands.add_parser(
        "delete",
        parents=[rest, move, json_output],
        help="delete a game",
        description="Send a transaction deleting the game NAME.",
    )
    delete.add_argument("name", metavar="NAME", help="name of the game")

    subcommands.add_parser(
        "list",
        parents=[rest, output],
        help="list every game",
        description="Show every XO game in state: players, board and state.",
    )

    show = subcommands.add_parser(
        "show",
        parents=[rest, output],
        help="show one game and its board",
        description="Show the game NAME: its board, whose turn it is and its players.",
    )
    show.add_argument("name", metavar="NAME", help="name of the game")
    show.add_argument(
        "--analyze",
        action="store_true",
        help="also say who has a line, the legal moves, and how the game ends with perfect play from here "
        "and the best moves (in JSON: \"analysis\")",
    )

    watch = subcommands.add_parser(
        "watch",
        parents=[rest, output],
        help="follow a game (or every game) as its moves commit",
        description="Draw the game NAME, then each move as it commits (who, which space, the new state), until "
        "the game ends or is deleted (exit 0); Ctrl-C stops watching (exit 130). Without NAME, every XO game: a "
        "line per game created, move made and game deleted, until Ctrl-C. Uses the REST API's /subscriptions "
        "websocket, and polls the REST API if the websocket is refused; a dropped connection is resumed "
        "after the last block seen, so no move is missed or shown twice.",
        epilog=WATCH_EXAMPLES,
    )
    watch.add_argument("name", nargs="?", metavar="NAME", help="the game to watch (default: every game)")

    history = subcommands.add_parser(
        "history",
        parents=[rest],
        help="show the committed moves of a game",
        description="List the committed moves of the game NAME in order, read from the REST API's blocks: block, "
        "player, action, space, and the board and state after each. A name deleted and created again shows "
        "each game separately.",
        epilog=HISTORY_EXAMPLES,
    )
    history.add_argument("name", metavar="NAME", help="name of the game")
    history.add_argument(
        "--format",
        choices=("table", "json", "aries"),
        default="table",
        help="output format (default: table); aries: the game as an Aries Tic Tac Toe 1.0 message thread",
    )
    history.add_argument("--json", action="store_const", const="json", dest="format", help="same as --format json")
    history.add_argument(
        "--game",
        type=game_number,
        metavar="N",
        help="only the N-th game of that name (1 = the first created); --format aries shows the last by default",
    )

    status_parser(subcommands, [rest, wait_flags(), output])
    keygen_parser(subcommands, VERSION)
    add_aries_commands(subcommands, rest=rest, move=move, json_output=json_output)
    add_play_commands(subcommands, rest=rest)
    add_web_command(subcommands, rest)
    add_ratings_command(subcommands, rest, output)
    add_chain_commands(subcommands, rest, output)
    return parser


def parse(argv: list[str]) -> argparse.Namespace:
    """Parse ``argv``; usage errors exit with status 2 after one ``xo: error:`` line."""
    return full_chain_command(full_command(parse_command_line(build_parser(), argv)))
