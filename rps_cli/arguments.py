"""The ``rps`` command line: rps's verbs on the flags every client command shares (:mod:`client_core.arguments`).

``--url``, ``--username``, ``--key-dir``, ``--auth-user``, ``--auth-password``, ``--wait``,
``--json``, ``-v`` and their environment variables mean exactly what they mean for
``xo``; this module adds the game's commands and their own flags.
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
from rps_tp.game import DEFAULT_SETTINGS, MAX_TIMEOUT, MIN_TIMEOUT, POINTS_OBJECTIVES, THROWS
from xo_core import __version__

VERSION = f"rps (xo-sawtooth) {__version__}"

EXAMPLE = """\
example (alice hosts, bob joins; each throw waits for the other's, then reveals):
  rps create duel --first-to 2 --username alice --wait
  rps join duel --username bob --wait
  rps ready duel --username alice --wait
  rps ready duel --username bob --wait
  rps throw duel rock --username alice        (in one terminal)
  rps throw duel scissors --username bob      (in another)"""

EXIT_CODES = """\
exit codes:
  0    done: committed (or, without --wait, submitted); a query answered; a round played; a watched game ended
  1    rejected, or invalid input (nothing was submitted if the line says so)
  2    usage error
  3    connection or server error
  4    stopped waiting (--wait ran out) before the batch was decided or the opponent acted
  70   internal error (a bug in rps)
  130  interrupted (Ctrl-C); 143 terminated (SIGTERM)"""

WATCH_EXAMPLES = """\
examples:
  rps watch duel            the game, then a line per commit, reveal and round, until the game ends
  rps watch duel --json     one JSON object per line: the block, the change, the game after it
  rps watch                 every rps game (Ctrl-C stops)"""


def points(text: str) -> int:
    """``--first-to``: 1, 2 or 3 points."""
    if text not in {str(value) for value in POINTS_OBJECTIVES}:
        raise argparse.ArgumentTypeError(f"expected 1, 2 or 3 points, got {text!r}")
    return int(text)


def timeout(text: str) -> int:
    """``--timeout``: whole seconds from 1 to a week."""
    if not text.isascii() or not text.isdigit() or not MIN_TIMEOUT <= int(text) <= MAX_TIMEOUT:
        raise argparse.ArgumentTypeError(f"expected whole seconds from {MIN_TIMEOUT} to {MAX_TIMEOUT}, got {text!r}")
    return int(text)


def settings_flags(defaults: bool) -> argparse.ArgumentParser:
    """``--first-to N`` and ``--timeout SECONDS``."""
    flags = argparse.ArgumentParser(add_help=False)
    default_points = f" (default: {DEFAULT_SETTINGS.points})" if defaults else " (default: unchanged)"
    default_timeout = f" (default: {DEFAULT_SETTINGS.timeout})" if defaults else " (default: unchanged)"
    flags.add_argument(
        "--first-to", type=points, metavar="N", help=f"points to win the game: 1, 2 or 3{default_points}"
    )
    flags.add_argument(
        "--timeout",
        type=timeout,
        metavar="SECONDS",
        help="seconds each player has to commit, and then to reveal, in every round before an opponent who has "
        "may claim the game "
        f"(1 to {MAX_TIMEOUT}){default_timeout}",
    )
    return flags


def build_parser() -> CommandParser:
    """The whole command line, with flags shared through parent parsers so every command spells them alike."""
    line = command_line(
        prog="rps",
        description="Play rock-paper-scissors on a Hyperledger Sawtooth network by sending rps transactions. "
        "Each round, both players commit to a salted hash of their throw, then reveal it: 'rps throw' does both. "
        "'rps COMMAND --help' tells more about each command.",
        epilog=f"{EXAMPLE}\n\n{EXIT_CODES}",
        version=VERSION,
    )
    parser, subcommands = line.parser, line.subcommands
    rest, move, output, json_output = line.rest, line.move, line.output, line.json_output
    json_output.set_defaults(format="table")
    op_parents = [rest, move, json_output]

    def op(
        name: str, help_text: str, description: str, parents: list[argparse.ArgumentParser] | None = None
    ) -> argparse.ArgumentParser:
        command = subcommands.add_parser(
            name, parents=[*op_parents, *(parents or [])], help=help_text, description=description
        )
        command.add_argument("name", metavar="NAME", help="name of the game")
        return command

    create = op(
        "create",
        "create a game (and host it)",
        "Create the game NAME with its settings, and join it as its host (the first player to join a game hosts "
        "it and chooses its settings). Both players must then be ready for the settings before play starts.",
        [settings_flags(defaults=True)],
    )
    create.add_argument("--no-join", action="store_true", help="create the game without joining it")
    op(
        "join",
        "join a game",
        "Take a seat in the game NAME: the first player to join hosts it, the second plays against the host.",
    )
    op(
        "setup",
        "change a game's settings (host)",
        "As the host, change the settings of the game NAME before play starts. Every player must then be ready "
        "again, for the new settings.",
        [settings_flags(defaults=False)],
    )
    op(
        "ready",
        "agree to a game's settings",
        "Say you are ready to play the game NAME with the settings it has now (rps reads them and shows them). "
        "Play starts once both players are ready; if the host changes the settings meanwhile, the ready is "
        "refused.",
    )
    throw = op(
        "throw",
        "throw rock, paper or scissors in the current round",
        "Commit to THROW in the current round of the game NAME, wait until your opponent has committed too, reveal "
        "it, and wait for your opponent's reveal to print the round's result. The throw and a fresh 32-byte salt "
        "are kept in your vault (KEY_DIR/rps-vault, mode 0600) before anything is sent, and never printed. "
        "Without --wait, and with a bare --wait, rps waits as long as it takes; --wait SECONDS bounds all the "
        "waiting (exit 4 when it runs out). Ctrl-C while waiting leaves your commitment on the chain: "
        "'rps reveal NAME' reveals it later.",
    )
    throw.add_argument("throw", metavar="THROW", choices=THROWS, help="rock, paper or scissors")
    throw.add_argument(
        "--commit-only", action="store_true", help="stop once the commitment is submitted (committed, with --wait)"
    )
    op(
        "reveal",
        "reveal your committed throw",
        "Reveal your commitment in the current round of the game NAME, from your vault (after 'rps throw "
        "--commit-only', or a throw that stopped waiting): wait until your opponent has committed, reveal, and wait "
        "for your opponent's reveal to print the round's result. --wait as for throw.",
    )
    op("resign", "give a game up", "Resign the game NAME, which is being played: your opponent wins.")
    op(
        "claim",
        "win a game your opponent holds up",
        "Claim the game NAME: allowed once you have committed (or revealed) in the round and your opponent has "
        "not, once the game's time-out has passed since that commit (or reveal) phase began, measured by the "
        "network's BlockInfo time. You win.",
    )
    op("delete", "delete a game (host)", "As the host, delete the game NAME before play starts or once it is over.")

    subcommands.add_parser(
        "list", parents=[rest, output], help="list every rps game", description="Show every rps game in state."
    )
    show = subcommands.add_parser(
        "show",
        parents=[rest, output],
        help="show one game",
        description="Show the game NAME: its state, settings, players and scores, who has committed, who must act "
        "next and when a claim becomes possible, and the rounds played. Only what is public: a throw appears once "
        "its player has revealed it.",
    )
    show.add_argument("name", metavar="NAME", help="name of the game")
    watch = subcommands.add_parser(
        "watch",
        parents=[rest, output],
        help="follow a game (or every game) as it is played",
        description="Show the game NAME, then each change as it commits (joined, ready, committed, revealed, each "
        "round's result), until the game is over or deleted (exit 0); Ctrl-C stops watching (exit 130). Without "
        "NAME, every rps game, until Ctrl-C. Uses the REST API's /subscriptions websocket, and polls the REST API "
        "if the websocket is refused.",
        epilog=WATCH_EXAMPLES,
    )
    watch.add_argument("name", nargs="?", metavar="NAME", help="the game to watch (default: every game)")

    status_parser(subcommands, [rest, wait_flags(), output])
    keygen_parser(subcommands, VERSION)
    return parser


def parse(argv: list[str]) -> argparse.Namespace:
    """Parse ``argv``; usage errors exit with status 2 after one ``rps: error:`` line."""
    return parse_command_line(build_parser(), argv)
