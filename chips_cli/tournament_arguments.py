"""``chips tournament``'s command line: create, join, leave, list, show and play, and the values their flags hold.

Durations are seconds or a number with a unit (``90s``, ``5m``, ``1h``); ``--players``
is ``MIN..MAX``; ``--prizes`` percentages of the pool by place, ``60,30,10``.
"""

from __future__ import annotations

import argparse
import re
from typing import Final

from chips_tp.channel import MAX_DURATION
from chips_tp.tournament import MAX_FIRST_TO, MAX_PLAYERS, MAX_PRIZES, MAX_SWISS_ROUNDS, MIN_PLAYERS
from client_core.arguments import CommandParser

UNITS: Final = {"": 1, "s": 1, "m": 60, "h": 3600}
_DURATION: Final = re.compile(r"([0-9]{1,7})([smh]?)")
_PLAYERS: Final = re.compile(r"([0-9]{1,3})\.\.([0-9]{1,3})")
LEVELS: Final = ("perfect", "heuristic", "random")
#: An rps tournament's matches without --first-to: first to 2, at most three rounds.
DEFAULT_FIRST_TO: Final = 2


def duration(text: str) -> int:
    """An argparse type: seconds, or a number with a unit (``90s``, ``5m``, ``1h``), up to 30 days."""
    found = _DURATION.fullmatch(text.strip())
    seconds = int(found[1]) * UNITS[found[2]] if found else 0
    if not 1 <= seconds <= MAX_DURATION:
        raise argparse.ArgumentTypeError(
            f"expected a duration: seconds, or a number with a unit (90s, 5m, 1h), up to 30 days; got {text!r}"
        )
    return seconds


def players(text: str) -> tuple[int, int]:
    """An argparse type: ``MIN..MAX`` players, from 2 to 256, the fewest first."""
    found = _PLAYERS.fullmatch(text.strip())
    if not found or not MIN_PLAYERS <= int(found[1]) <= int(found[2]) <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(
            f"expected MIN..MAX players (such as 4..16) from {MIN_PLAYERS} to {MAX_PLAYERS}, got {text!r}"
        )
    return int(found[1]), int(found[2])


def prizes(text: str) -> tuple[int, ...]:
    """An argparse type: whole percentages of the pool by place, first place first, adding up to 100."""
    parts = [part.strip() for part in text.split(",")]
    if not 1 <= len(parts) <= MAX_PRIZES or not all(p.isascii() and p.isdigit() and int(p) <= 100 for p in parts):
        raise argparse.ArgumentTypeError(f"expected percentages by place such as 60,30,10, got {text!r}")
    if sum(int(p) for p in parts) != 100:
        raise argparse.ArgumentTypeError(f"the prizes must add up to 100 percent, not {sum(int(p) for p in parts)}")
    return tuple(int(p) for p in parts)


def rounds(text: str) -> int:
    """An argparse type: a Swiss's rounds, 1 to 64."""
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_SWISS_ROUNDS:
        raise argparse.ArgumentTypeError(f"expected rounds from 1 to {MAX_SWISS_ROUNDS}, got {text!r}")
    return int(text)


def first_to(text: str) -> int:
    """An argparse type: the round wins that take an rps match, 1 to 25."""
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_FIRST_TO:
        raise argparse.ArgumentTypeError(f"expected round wins from 1 to {MAX_FIRST_TO}, got {text!r}")
    return int(text)


def buy_in(text: str) -> int:
    """An argparse type: a buy-in of 1 chip or more."""
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of chips from 1, got {text!r}")
    return int(text)


Parents = list[argparse.ArgumentParser]


def add_tournament_parser(sub: argparse._SubParsersAction, signs: Parents, reads: Parents, plays: Parents) -> None:
    """``chips tournament VERB``: ``signs`` are the parents of the verbs that submit, ``reads`` of the queries,
    ``plays`` of ``play``."""
    tournament = sub.add_parser(
        "tournament", help="create, join, follow and play tournaments for a prize pool the chain holds",
        description="Tournaments whose buy-ins the chain holds: an organiser creates one, players join by paying the "
        "buy-in, and 'chips tournament play' plays each of your matches as its round comes and moves the tournament on "
        "when it is due; the chain pairs every round and pays the pool by the prizes after the last.",
    )  # fmt: skip
    verbs = tournament.add_subparsers(dest="verb", metavar="VERB", parser_class=CommandParser)
    verbs.required = True
    create = verbs.add_parser("create", parents=signs, help="create a tournament",
                              description="Create the tournament NAME; players join it until --join-for is over or "
                              "it is full.")  # fmt: skip
    create.add_argument("name", metavar="NAME")
    create.add_argument("--game", required=True, choices=("xo", "rps"),
                        help="xo: one game a match; rps: first to --first-to round wins a match")  # fmt: skip
    create.add_argument("--first-to", type=first_to, metavar="N",
                        help=f"rps only: a match is at most 2N-1 rounds (a tie counts as one), won by the side with "
                        f"more round wins, and ends once the rounds left cannot change that (1 to {MAX_FIRST_TO}, "
                        f"default {DEFAULT_FIRST_TO})")  # fmt: skip
    create.add_argument("--format", required=True, choices=("swiss", "knockout"), dest="style")
    create.add_argument(
        "--rounds", type=rounds, metavar="R", help="a swiss's rounds (a knockout's follow from its field)"
    )
    create.add_argument("--buy-in", required=True, type=buy_in, metavar="N", help="chips each player pays in")
    create.add_argument(
        "--players",
        required=True,
        type=players,
        metavar="MIN..MAX",
        help="the fewest players it starts with (fewer: every buy-in is refunded) and the most",
    )
    create.add_argument("--join-for", required=True, type=duration, metavar="DURATION",
                        help="how long players may join (seconds, or 90s, 5m, 1h)")  # fmt: skip
    create.add_argument(
        "--round-for",
        required=True,
        type=duration,
        metavar="DURATION",
        help="how long a round may take; a third of it is the challenge time of its matches",
    )
    create.add_argument(
        "--prizes",
        required=True,
        type=prizes,
        metavar="P1,P2,...",
        help="percentages of the pool by place, adding up to 100 (the odd chips go to first place)",
    )
    for verb, text in (("join", "join a tournament, paying its buy-in"),
                       ("leave", "leave a tournament before it starts, with your buy-in back")):  # fmt: skip
        command = verbs.add_parser(verb, parents=signs, help=text, description=text[0].upper() + text[1:] + ".")
        command.add_argument("name", metavar="NAME")
    verbs.add_parser(
        "list",
        parents=reads,
        help="list the tournaments",
        description="Every tournament on the chain: game, format, status, players, buy-in and pool.",
    )
    show = verbs.add_parser("show", parents=reads, help="show a tournament",
                            description="A tournament's status, players, the pairings and results of every round, the "
                            "standings with their tie-breaks, and the prizes paid.")  # fmt: skip
    show.add_argument("name", metavar="NAME")
    play = verbs.add_parser("play", parents=plays, help="play your matches in a tournament as their rounds come",
                            description="Take part in NAME to its end: start it when due, play each of your matches "
                            "as its round comes (typed moves, or --bot), record results and advance rounds when they "
                            "are due. A field of bots runs a whole tournament this way, with no director.")  # fmt: skip
    play.add_argument("name", metavar="NAME")
    play.add_argument("--bot", choices=LEVELS, metavar="LEVEL", help="let the computer play, at LEVEL (perfect, "
                      "heuristic, random)")  # fmt: skip
