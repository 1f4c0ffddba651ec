"""The command line of ``xo aries``: ``check`` and ``replay``, the Aries Tic Tac Toe 1.0 commands.

Kept apart from :mod:`xo_cli.arguments` so that the group reads as one unit. The
group's own subcommand is folded into ``command`` (``"aries check"``) by
:func:`full_command`, so that :mod:`xo_cli.main` maps it to its function like any other.
"""

from __future__ import annotations

import argparse
from typing import Final

from client_core.arguments import CommandParser

GROUP: Final = "aries"

THREAD_EXAMPLE = """\
example (a thread in which X won; check it, then record it as game g7):
  xo aries check game.json
  xo aries replay game.json g7 --username alice --opponent bob --wait
  xo show g7"""


def add_aries_commands(
    subcommands: argparse._SubParsersAction,
    *,
    rest: argparse.ArgumentParser,
    move: argparse.ArgumentParser,
    json_output: argparse.ArgumentParser,
) -> argparse.ArgumentParser:
    """``xo aries check FILE|-`` and ``xo aries replay FILE NAME --opponent O_PLAYER``."""
    group = subcommands.add_parser(
        GROUP,
        help="check or replay an Aries Tic Tac Toe 1.0 thread",
        description="Games played between agents as Aries Tic Tac Toe 1.0 message threads (a JSON array of "
        "move and outcome messages): check one against the XO rules, or record it on the ledger as a new game.",
        epilog=THREAD_EXAMPLE,
    )
    actions = group.add_subparsers(dest="aries_command", metavar="ACTION", parser_class=CommandParser)
    actions.required = True

    check = actions.add_parser(
        "check",
        parents=[json_output],
        help="check a thread against the XO rules",
        description="Check the thread in FILE (- reads standard input) against the XO rules. A valid thread prints "
        "'FILE: valid: ...' and exits 0; otherwise the first bad message is printed as 'FILE[INDEX]: CODE: "
        "explanation' (INDEX counts from 0; CODE is the protocol's not-your-turn, already-occupied or bad-move, "
        "or bad-message for a message that does not fit the thread) and the exit status is 1.",
    )
    check.add_argument("file", metavar="FILE", help="the thread, a JSON array of messages; - for standard input")

    replay = actions.add_parser(
        "replay",
        parents=[rest, move, json_output],
        help="record a thread on the ledger as a new game",
        description="Create the game NAME and make the thread's moves in it, X's signed with the key of --username "
        "and O's with the key of --opponent, all in one batch: the ledger takes the whole game or none of it. "
        "The thread is checked first, and NAME must not exist yet (--no-validate skips that check, never the "
        "thread's); otherwise nothing is submitted. A thread abandoned before its end leaves the game unfinished.",
    )
    replay.add_argument("file", metavar="FILE", help="the thread, a JSON array of messages; - for standard input")
    replay.add_argument("name", metavar="NAME", help="name of the new game")
    replay.add_argument(
        "--opponent",
        required=True,
        metavar="O_PLAYER",
        help="name of the key that signs O's moves, in the key directory (--username's key signs X's)",
    )
    replay.add_argument(
        "--both-seats",
        action="store_true",
        help="allow --username and --opponent to be the same key, which then holds both seats",
    )
    return group


def full_command(args: argparse.Namespace) -> argparse.Namespace:
    """Fold the group's action into ``command``: ``aries`` + ``check`` -> ``aries check``."""
    if args.command == GROUP:
        args.command = f"{GROUP} {args.aries_command}"
        del args.aries_command
    return args
