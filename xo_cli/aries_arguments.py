"""The command line of ``xo aries``: the Aries Tic Tac Toe 1.0 commands, on files and between live agents.

``check`` and ``replay`` read a thread from a file; ``agent``, ``connect`` and ``play`` run and
drive ACA-Py agents with the ``xo_aries`` plugin.

Kept apart from :mod:`xo_cli.arguments` so that the group reads as one unit. The
group's own subcommand is folded into ``command`` (``"aries check"``) by
:func:`full_command`, so that :mod:`xo_cli.main` maps it to its function like any other.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Final

from client_core.arguments import CommandParser

GROUP: Final = "aries"

THREAD_EXAMPLE = """\
example (a thread in which X won; check it, then record it as game g7):
  xo aries check game.json
  xo aries replay game.json g7 --username alice --opponent bob --wait
  xo show g7"""

AGENT_EXAMPLE = """\
example (two agents on this machine; the second plays perfectly by itself; the key comes from the
environment, so that other users cannot read it in the process list):
  export XO_ARIES_ADMIN_API_KEY=s3cret
  xo aries agent --label alice --inbound 127.0.0.1:8020 --admin 127.0.0.1:8021
  xo aries agent --label bot --inbound 127.0.0.1:8030 --admin 127.0.0.1:8031 --auto-play perfect
  xo aries connect INVITATION_URL_OF_BOT --admin http://127.0.0.1:8021
  xo aries play --admin http://127.0.0.1:8021 --connection CONNECTION_ID"""

ADMIN_API_KEY_ENV: Final = "XO_ARIES_ADMIN_API_KEY"
"""The admin API key's variable: a key given as a flag shows in the process list, one in the environment does not."""


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
        help="play Aries Tic Tac Toe 1.0 between agents, or check or replay a thread",
        description="Games played between agents with the Aries Tic Tac Toe 1.0 protocol. Live: run an ACA-Py "
        "agent with the xo_aries plugin (agent), connect it to another (connect) and play through it (play). "
        "As files, a JSON array of move and outcome messages: check one against the XO rules, or record it on "
        "the ledger as a new game.",
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
        metavar="O_PLAYER",
        help="name of the key that signs O's moves, in the key directory (--username's key signs X's; default: "
        "the computer player's key xo-ai, made on first use, standing in for the other agent)",
    )
    replay.add_argument(
        "--both-seats",
        action="store_true",
        help="allow --username and --opponent to be the same key, which then holds both seats",
    )
    _add_agent_commands(actions)
    return group


def _add_agent_commands(actions: argparse._SubParsersAction) -> None:
    """``agent``, ``connect`` and ``play``: agents playing over DIDComm (:mod:`xo_cli.aries_agent`)."""
    from xo_cli.aries_agent import LEVELS, address  # noqa: PLC0415 (only the aries group needs them)

    agent = actions.add_parser(
        "agent",
        help="run an ACA-Py agent that plays Tic Tac Toe 1.0 (needs Python 3.12+)",
        description="Start ACA-Py with the xo_aries plugin for one player: an askar wallet in the player's data "
        "directory, no Indy ledger, HTTP transport, invitations and connection requests accepted on their own, "
        "the admin API on loopback. Prints a reusable invitation, then runs until Ctrl-C. Exit 3 if ACA-Py is not "
        "installed for this Python (it needs 3.12 or newer).",
        epilog=AGENT_EXAMPLE,
    )
    agent.add_argument("--label", required=True, help="the agent's name, shown to other agents; names its data dir")
    agent.add_argument("--inbound", required=True, type=address, metavar="HOST:PORT", help="DIDComm HTTP endpoint")
    agent.add_argument("--admin", required=True, type=address, metavar="HOST:PORT", help="admin API, on loopback")
    agent.add_argument(
        "--admin-api-key",
        metavar="KEY",
        default=os.environ.get(ADMIN_API_KEY_ENV) or None,
        help=f"require this X-API-Key on the admin API (default: ${ADMIN_API_KEY_ENV}, which keeps it out of the"
        " process list)",
    )
    agent.add_argument("--auto-play", choices=LEVELS, help="answer every move with the computer player at this level")
    agent.add_argument("--endpoint", metavar="URL", help="the endpoint other agents reach (default: http://INBOUND)")
    agent.add_argument(
        "--webhook-url",
        action="append",
        metavar="URL",
        help="post every change (topic tictactoe, and ACA-Py's own) to URL/topic/TOPIC/; repeatable",
    )
    agent.add_argument("--data-dir", type=Path, help="wallet directory (default: $XDG_DATA_HOME/xo-aries/LABEL)")
    agent.add_argument("--anchor-url", metavar="URL", help="record this agent's moves on the ledger at this REST API")
    agent.add_argument("--username", help="with --anchor-url: the key that signs this agent's moves")
    agent.add_argument("--key-dir", help="with --anchor-url: where --username's key is (default ~/.sawtooth/keys)")
    agent.add_argument("-v", "--verbose", action="count", default=0, help="ACA-Py logs at info level")

    connect = actions.add_parser(
        "connect",
        help="make an agent accept another agent's invitation",
        description="Have the agent whose admin API is --admin accept INVITATION_URL (ACA-Py's out-of-band "
        "receive-invitation) and wait until the connection is active; prints the connection id.",
    )
    connect.add_argument("invitation", metavar="INVITATION_URL", help="the URL xo aries agent printed (?oob=...)")
    _add_admin(connect)
    connect.add_argument("--wait", type=float, default=30.0, metavar="SECONDS", help="how long to wait (default 30)")
    connect.add_argument("-v", "--verbose", action="count", default=0, help=argparse.SUPPRESS)

    play = actions.add_parser(
        "play",
        help="play a game from the terminal through an agent",
        description="Play Tic Tac Toe over --connection through the agent at --admin, like xo play: type cells "
        "(A1-C3, or 1-9), q to leave. Starts a new game as --me (X opens), or goes on with --thread.",
    )
    _add_admin(play)
    play.add_argument("--connection", required=True, metavar="ID", help="the connection id (xo aries connect)")
    play.add_argument("--me", choices=("X", "O"), default="X", help="my mark in a new game (default X, who opens)")
    play.add_argument("--thread", metavar="ID", help="go on with this game instead of starting one")
    play.add_argument(
        "--wait", type=float, default=600.0, metavar="SECONDS", help="longest wait for the other move (default 600)"
    )
    play.add_argument("-v", "--verbose", action="count", default=0, help=argparse.SUPPRESS)


def _add_admin(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--admin", required=True, metavar="URL", help="the agent's admin API, http://127.0.0.1:PORT")
    parser.add_argument(
        "--admin-api-key",
        metavar="KEY",
        default=os.environ.get(ADMIN_API_KEY_ENV) or None,
        help=f"the admin API's X-API-Key, if it has one (default: ${ADMIN_API_KEY_ENV})",
    )


def full_command(args: argparse.Namespace) -> argparse.Namespace:
    """Fold the group's action into ``command``: ``aries`` + ``check`` -> ``aries check``."""
    if args.command == GROUP:
        args.command = f"{GROUP} {args.aries_command}"
        del args.aries_command
    return args
