"""The ``xo`` command line: the reference Sawtooth client's commands and flags, plus ours.

Existing scripts written for the reference ``xo`` keep working: same
subcommands, same flags (``--disable-client-validation`` is accepted as the old
spelling of ``--no-validate``). The flags shared with every client command come
from :mod:`client_core.arguments`; this module adds XO's commands.
"""

from __future__ import annotations

import argparse

from client_core.arguments import CommandParser, add_verbosity, keygen_parser, move_flags, output_flags, rest_flags
from xo_core import __version__

VERSION = f"xo (xo-sawtooth) {__version__}"


def build_parser() -> CommandParser:
    """The whole command line, with flags shared through parent parsers so every command spells them alike."""
    parser = CommandParser(
        prog="xo",
        description="Play tic-tac-toe on a Hyperledger Sawtooth network by sending XO transactions.",
        epilog="Exit codes: 0 done (committed, or submitted when not waiting), 1 rejected or invalid input, "
        "2 usage error, 3 connection or server error, 4 stopped waiting before the batch was decided, "
        "70 internal error (a bug in xo), 130 interrupted.",
    )
    add_verbosity(parser, VERSION, dest="verbose_before")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    subcommands.required = True

    rest = rest_flags(VERSION)
    move = move_flags()
    output = output_flags()

    create = subcommands.add_parser(
        "create",
        parents=[rest, move],
        help="create a new game",
        description="Send a transaction creating the game NAME; it fails if NAME already exists.",
    )
    create.add_argument("name", metavar="NAME", help="unique name of the new game")

    take = subcommands.add_parser(
        "take",
        parents=[rest, move],
        help="take a space in a game",
        description="Send a transaction placing your mark on SPACE of game NAME.",
    )
    take.add_argument("name", metavar="NAME", help="name of the game")
    take.add_argument(
        "space", metavar="SPACE", help="1-9 (row by row from the top left) or A1-C3 (column letter, row number)"
    )

    delete = subcommands.add_parser(
        "delete",
        parents=[rest, move],
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

    keygen_parser(subcommands, VERSION)
    return parser


def parse(argv: list[str]) -> argparse.Namespace:
    """Parse ``argv``; usage errors exit with status 2 after one ``xo: error:`` line."""
    args = build_parser().parse_args(argv)
    args.verbose = args.verbose_before + getattr(args, "verbose", 0)
    del args.verbose_before
    return args
