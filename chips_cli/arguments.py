"""The ``chips`` command line: the chips family's verbs on the flags every client command shares.

``--url``, ``--username``, ``--key-dir``, ``--auth-user``, ``--auth-password``, ``--wait``,
``--json``, ``-v`` mean exactly what they mean for ``xo`` and ``rps``; ``--broker`` (or
``$XO_BROKER``, :func:`client_core.arguments.broker_flags`) names the MQTT broker the players' messages go through.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from chips_cli.tournament_arguments import add_tournament_parser
from chips_client.channels import MAX_ROUNDS
from chips_client.faucet import DEFAULT_AMOUNT, PER_KEY_PER_HOUR
from chips_client.offers import MAX_OFFER_SECONDS
from chips_tp.channel import DEFAULT_DURATION, MAX_DURATION, MIN_DURATION
from client_core.arguments import (
    broker_flags,
    command_line,
    keygen_parser,
    parse_command_line,
    status_parser,
    wait_flags,
)
from xo_core import __version__

VERSION = f"chips (xo-sawtooth) {__version__}"
LEVELS = ("perfect", "heuristic", "random")

EXAMPLE = """\
example (alice opens a best-of-3 XO match for 10 chips a game; bob joins; two bots play it):
  chips open duel --with bob --game xo --stake 10 --deposit 50 --username alice
  chips list --username bob
  chips join duel --username bob
  chips bot duel --username alice &  chips bot duel --username bob"""

EXIT_CODES = """\
exit codes:
  0    done: committed; a query answered; a match ended with its channel concluded or finalized
  1    rejected, invalid input, or a channel that cannot be played (not found, not yours, still funding)
  2    usage error
  3    connection error: the REST API or the broker cannot be reached
  4    stopped waiting (--wait ran out) before the batch was decided
  70   internal error (a bug in chips)
  130  interrupted (Ctrl-C); 143 terminated (SIGTERM)"""


def whole(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` (to ``high``)."""

    def parse(text: str) -> int:
        if not text.isascii() or not text.isdigit() or int(text) < low or (high is not None and int(text) > high):
            upper = f" to {high}" if high is not None else " or more"
            raise argparse.ArgumentTypeError(f"expected a whole number from {low}{upper}, got {text!r}")
        return int(text)

    return parse


def seconds(text: str) -> float:
    """An argparse type for a duration: a positive number of seconds, or a usage error that says what was wrong."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 0 < value < 1e9:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def patience_flags() -> argparse.ArgumentParser:
    """The ``--patience`` flag shared by the commands that play, so they all challenge a stalled opponent alike."""
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument(
        "--patience", type=seconds, metavar="SECONDS",
        help="challenge an opponent who has not moved for SECONDS (default: never; 'chips challenge' does it by hand)",
    )  # fmt: skip
    return flags


def validate_flags() -> argparse.ArgumentParser:
    """``--no-validate`` of the commands that move chips, so they all skip the chain's checks alike."""
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument(
        "--no-validate", action="store_true", dest="no_validate",
        help="submit without first checking against the chain what chips-tp would refuse (balance, deposits, the "
        "challenge floor, ...): the validator's own reason then comes back",
    )  # fmt: skip
    return flags


def match_terms(parser: argparse.ArgumentParser) -> None:
    """The terms of a match: the game, the stake, each deposit, the rounds and the challenge duration."""
    parser.add_argument("--game", required=True, choices=("xo", "rps"), help="the game played in the channel")
    parser.add_argument("--stake", required=True, type=whole(1), metavar="N", help="chips per game or round")
    parser.add_argument("--deposit", required=True, type=whole(1), metavar="N", help="chips each player locks in")
    parser.add_argument("--rounds", type=whole(0, MAX_ROUNDS), default=3, metavar="N",
                        help="games (xo) or rounds (rps) to play before concluding; 0: until a player cannot "
                        "cover the stake (default: 3)")  # fmt: skip
    parser.add_argument("--challenge", type=whole(MIN_DURATION, MAX_DURATION), default=DEFAULT_DURATION,
                        metavar="SECONDS", help="how long a challenged player has to answer "
                        f"(default: {DEFAULT_DURATION}; at least the network's floor, the setting "
                        "chips.min_challenge_seconds: 600 where it is unset, 10 on xo-devnet)")  # fmt: skip


def auto_respond_flags() -> argparse.ArgumentParser:
    """``--no-auto-respond`` of the commands where a person plays, so they all spell and mean it alike."""
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument(
        "--no-auto-respond", action="store_true",
        help="when a challenge waits on your move, never let the computer play it for you (by default it does, "
        "at half the time left, so the challenge is not lost)",
    )  # fmt: skip
    return flags


def build_parser() -> argparse.ArgumentParser:
    """The whole command line, with flags shared through parent parsers so every command spells them alike."""
    line = command_line(
        prog="chips",
        description="Hold chips, and stake them on matches of xo or rps played off chain: two players lock a "
        "deposit in a channel, exchange signed moves through an MQTT broker, and close the channel with one "
        "transaction. The chain referees: a stalling or cheating opponent is challenged and loses the stake. "
        "'chips COMMAND --help' tells more about each command.",
        epilog=f"{EXAMPLE}\n\n{EXIT_CODES}",
        version=VERSION,
    )
    sub = line.subcommands
    rest, move, output, json_output = line.rest, line.move, line.output, line.json_output
    json_output.set_defaults(format="table")
    signs = [rest, wait_flags(), json_output]
    moves_chips = [*signs, validate_flags()]

    balance = sub.add_parser("balance", parents=[rest, output], help="show a player's free chips",
                             description="The chips in the account of NAME (a key name or a public key; default: "
                             "you), not counting what is locked in channels.")  # fmt: skip
    balance.add_argument("player", nargs="?", metavar="NAME", help="a key name or a public key (default: you)")
    faucet = sub.add_parser(
        "faucet", parents=[rest, json_output], help="get chips for your key from xo-devnet's faucet",
        description="Ask xo-devnet's faucet for chips for your key (a new key holds none): it issues them from the "
        f"devnet's issuer, at most {PER_KEY_PER_HOUR} chips a key in any hour ({DEFAULT_AMOUNT} unless --amount "
        "says). A Sawtooth network has no faucet: its chips come from its issuers (chips.issuers), and this says "
        "whom to ask.",
    )  # fmt: skip
    faucet.add_argument("--amount", type=whole(1, PER_KEY_PER_HOUR), metavar="N",
                        help=f"how many chips (default: the faucet's, {DEFAULT_AMOUNT})")  # fmt: skip
    for name, help_text in (("issue", "create chips in a player's account (issuers only)"),
                            ("transfer", "give some of your chips to a player")):  # fmt: skip
        command = sub.add_parser(name, parents=moves_chips, help=help_text, description=help_text[0].upper()
                                 + help_text[1:] + ". NAME is a key name or a public key.")  # fmt: skip
        command.add_argument("player", metavar="NAME", help="a key name or a public key")
        command.add_argument("amount", metavar="AMOUNT", type=whole(1), help="whole chips")

    opening = sub.add_parser(
        "open", parents=moves_chips, help="open a channel with a player (and pay your deposit)",
        description="Open the channel CHANNEL (a name you and your opponent use) with NAME, for a match of GAME with "
        "STAKE chips per game (xo) or round (rps), each paying DEPOSIT in; your deposit is paid in the same batch. "
        "The opponent then runs 'chips join CHANNEL'.",
    )  # fmt: skip
    opening.add_argument("channel", metavar="CHANNEL", help="the channel's name")
    opening.add_argument("--with", dest="opponent", required=True, metavar="NAME", help="the opponent")
    match_terms(opening)

    joining = sub.add_parser("join", parents=moves_chips, help="pay your deposit into a channel opened with you",
                             description="Pay your deposit into CHANNEL (its name, or its id or the first 8+ "
                             "characters of it as 'chips list' shows), opened with you by its opener.")  # fmt: skip
    joining.add_argument("channel", metavar="CHANNEL")
    sub.add_parser("list", parents=[rest, output], help="list your channels, and those open to you",
                   description="Every channel you take part in: its id, game, stake, deposits and status; those "
                   "waiting for your deposit are marked 'open to you'.")  # fmt: skip
    show = sub.add_parser("show", parents=[rest, output], help="show a channel",
                          description="The chain's record of CHANNEL (funding, running, challenged with its "
                          "deadline, closed with its payout) and the latest state you hold.")  # fmt: skip
    show.add_argument("channel", metavar="CHANNEL")
    for name, help_text in (
        ("conclude", "close a channel on the final state both signed (play and bot do it on their own)"),
        ("challenge", "challenge your opponent with the latest state you hold: they must answer by the deadline"),
        ("finalize", "pay out a challenged channel whose deadline passed unanswered"),
    ):
        command = sub.add_parser(name, parents=signs, help=help_text, description=help_text[0].upper() + help_text[1:]
                                 + ".")  # fmt: skip
        command.add_argument("channel", metavar="CHANNEL")

    play = sub.add_parser(
        "play", parents=[rest, broker_flags(), patience_flags(), auto_respond_flags()],
        help="play a match in a channel",
        description="Play your side of the match in CHANNEL: your moves are typed (a space 1-9 at xo, rock, paper or "
        "scissors at rps) at a terminal or read line by line from a pipe; every state is signed, kept in your store "
        "and sent through the broker. Ends (exit 0) once the channel is concluded or finalized. Answers a challenge "
        "against you while it runs.",
    )  # fmt: skip
    play.add_argument("channel", metavar="CHANNEL")
    bot = sub.add_parser(
        "bot", parents=[rest, broker_flags(), patience_flags()], help="let the computer play your side of a match",
        description="As 'chips play', with the computer choosing: at xo with xo's AI at --level; at rps every "
        "level throws uniformly at random (no strategy beats that), with a fresh salt each round.",
    )  # fmt: skip
    bot.add_argument("channel", metavar="CHANNEL")
    bot.add_argument("--level", choices=LEVELS, default="perfect")
    offering = sub.add_parser(
        "offer", parents=[rest, broker_flags(), patience_flags(), auto_respond_flags()],
        help="offer a match to anyone, and play who accepts",
        description="Publish a signed offer of a staked match on the broker, where 'chips offers' lists it for every "
        "player, and stay running: whoever accepts opens the channel on exactly these terms, and this command joins "
        "it and plays it, as 'chips play' does (one match at a time) or, with --bot, as 'chips bot' does (many at "
        "once: a house, which challenges an opponent who has not moved for 60 s unless --patience says otherwise). The "
        "offer is withdrawn on exit, after --for, or once --count matches were joined.",
    )  # fmt: skip
    match_terms(offering)
    offering.add_argument("--for", dest="offer_seconds", type=whole(1, MAX_OFFER_SECONDS), default=3600,
                          metavar="SECONDS", help="how long the offer stays open (default: 3600)")  # fmt: skip
    offering.add_argument("--count", type=whole(1), default=1, metavar="K",
                          help="how many accepts to join before the offer is withdrawn (default: 1)")  # fmt: skip
    offering.add_argument("--bot", choices=LEVELS, metavar="LEVEL",
                          help="let the computer play every match, at LEVEL (perfect, heuristic, random), many "
                          "at once")  # fmt: skip
    listing = sub.add_parser("offers", parents=[rest, broker_flags(), output], help="list the open offers",
                             description="The open offers on the broker, each verified (forged and expired ones "
                             "are left out): its id, who offers it, the terms, and until when it is open.")  # fmt: skip
    listing.add_argument("--game", choices=("xo", "rps"), help="only offers of this game")
    accepting = sub.add_parser(
        "accept", parents=[rest, wait_flags(), broker_flags(), patience_flags(), auto_respond_flags()],
        help="accept an open offer and play",
        description="Accept the open offer OFFER (its id as 'chips offers' prints it, or a unique beginning of it): "
        "open the channel on its terms, paying your deposit in, wait for the offerer to join (the channel is "
        "cancelled and your deposit returned if they do not), and play the match.",
    )  # fmt: skip
    accepting.add_argument("offer", metavar="OFFER")
    accepting.add_argument("--bot", choices=LEVELS, metavar="LEVEL",
                           help="let the computer play your side, at LEVEL")  # fmt: skip
    accepting.add_argument("--join-timeout", type=seconds, default=60.0, metavar="SECONDS",
                           help="how long to wait for the offerer to join (default: 60)")  # fmt: skip
    watch = sub.add_parser(
        "watch", parents=[rest, output], help="follow your channels on the chain (and defend them)",
        description="Print each change of your channels on the chain. With --defend, answer every challenge against "
        "you with the latest state in your store (checkpoint, conclude, or the next move): run it as a service, "
        "since an unanswered challenge loses the stake.",
    )  # fmt: skip
    watch.add_argument("--defend", action="store_true", help="answer challenges against you")
    watch.add_argument("--poll", type=seconds, default=2.0, metavar="SECONDS", help="how often the chain is read")
    add_tournament_parser(sub, signs, [rest, output], [rest, wait_flags(), broker_flags()])
    status_parser(sub, [rest, wait_flags(), output])
    keygen_parser(sub, VERSION)
    del move
    return line.parser


def parse(argv: list[str]) -> argparse.Namespace:
    """Parse ``argv``; usage errors exit with status 2 after one ``chips: error:`` line."""
    return parse_command_line(build_parser(), argv)
