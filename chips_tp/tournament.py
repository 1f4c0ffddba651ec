"""A tournament as the chain holds it, and the channel each of its pairings is played in.

A tournament's matches are ordinary chips channels with deposits of 0: no ``open`` can
make such a channel (a deposit must cover the stake), so the chain alone writes them,
and every processor and client tells a tournament's channel by its deposits. They hold
match points, not chips: closing one pays nobody. See docs/chips-family.md, Tournaments.
"""

import hashlib
from typing import Final, NamedTuple

from chips_tp.apps import APPS
from chips_tp.channel import RPS, XO, Fixed, channel_id
from chips_tp.channel_state import State, encode_state
from chips_tp.state import RUNNING, Channel
from xo_core import canonical

SWISS: Final = "swiss"
KNOCKOUT: Final = "knockout"
FORMATS: Final = (SWISS, KNOCKOUT)
JOINING: Final = "joining"
PLAYING: Final = "playing"
CLOSED: Final = "closed"
CANCELLED: Final = "cancelled"
STATUSES: Final = (JOINING, PLAYING, CLOSED, CANCELLED)
#: A pairing's result: who won (the channel's participant 0 plays white), a draw, nobody played it, a bye.
WHITE: Final = "white"
BLACK: Final = "black"
DRAW: Final = "draw"
UNPLAYED: Final = "unplayed"
BYE: Final = "bye"
RESULTS: Final = (WHITE, BLACK, DRAW, UNPLAYED, BYE)
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 256
MAX_SWISS_ROUNDS: Final = 64
MAX_PRIZES: Final = 32
MAX_NAME_LENGTH: Final = 64
#: A round lasts at least this many seconds: a third of it is the challenge duration of its channels.
MIN_ROUND_SECONDS: Final = 3
#: An rps match is first to N round wins, N from 1 to this (so at most 49 rounds: see :func:`match_games`).
MAX_FIRST_TO: Final = 25
MATCH_PURPOSE: Final = "chips/1.0 tournament match"
#: The stake of every game of a match: one match point.
MATCH_STAKE: Final = 1


class Pairing(NamedTuple):
    """Two players of a round by their place in the seed order (None: a bye, or an empty bracket slot), and the
    result once it is in."""

    white: int | None
    black: int | None
    result: str | None = None


class Tournament(NamedTuple):
    """A tournament's record: its terms (fixed at create), who entered, the pool, and every round's pairings."""

    name: str
    game: str
    format: str
    rounds: int
    buy_in: int
    organiser: str
    min_players: int
    max_players: int
    join_until: int
    round_seconds: int
    duration: int
    prizes: tuple[int, ...]
    status: str
    players: tuple[str, ...]
    pool: int
    draw: str | None
    round: int
    round_ends: int | None
    pairings: tuple[tuple[Pairing, ...], ...]
    payout: tuple[tuple[str, int], ...] | None
    #: rps: the round wins that take a match (1 to 25); xo: 0, a match is one game.
    first_to: int = 0


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a tournament, or None: 1 to 64 printable characters."""
    if not 1 <= len(name) <= MAX_NAME_LENGTH or not name.isprintable():
        return f"a tournament's name is 1 to {MAX_NAME_LENGTH} printable characters, not {name[:MAX_NAME_LENGTH]!r}"
    return None


def is_tournament_channel(fixed: Fixed) -> bool:
    """Whether ``fixed`` is a tournament's match: deposits of 0, which no ``open`` can fix."""
    return fixed.deposits == (0, 0)


def first_to_problem(game: str, first_to: int) -> str | None:
    """Why ``first_to`` cannot be the match length of a tournament of ``game``, or None."""
    if game == XO and first_to != 0:
        return f"an xo match is one game: its first_to is 0, not {first_to}"
    if game == RPS and not 1 <= first_to <= MAX_FIRST_TO:
        return f"an rps match is first to 1 to {MAX_FIRST_TO} round wins, not {first_to}"
    return None


def match_games(game: str, first_to: int) -> int:
    """The games (xo: 1) or rounds (rps first to N: at most 2N - 1) of one match, the low byte of its nonce."""
    return 1 if game == XO else 2 * first_to - 1


def match_points(game: str, first_to: int) -> int:
    """Each player's match points at turn 0: xo 1 (one game's stake); rps N, so a side that has lost N rounds more
    than it has won holds none and the rps app refuses it another round."""
    return 1 if game == XO else first_to


def match_nonce(name: str, round_number: int, board: int, games: int) -> int:
    """The nonce of the channel of ``board`` in round ``round_number``: 56 bits of a tagged hash, then the games."""
    digest = hashlib.sha256(canonical.encode([MATCH_PURPOSE, name, round_number, board])).digest()
    return int.from_bytes(digest[:7], "big") << 8 | games


def match_fixed(tournament: Tournament, round_number: int, board: int) -> Fixed:
    """The fixed terms of the channel of a pairing of two players (board ``board`` of round ``round_number``)."""
    pairing = tournament.pairings[round_number - 1][board]
    if pairing.white is None or pairing.black is None:
        raise ValueError(f"board {board} of round {round_number} is a bye: it has no channel")
    players = (tournament.players[pairing.white], tournament.players[pairing.black])
    games = match_games(tournament.game, tournament.first_to)
    nonce = match_nonce(tournament.name, round_number, board, games)
    return Fixed(players, tournament.game, MATCH_STAKE, (0, 0), tournament.duration, nonce)


def match_channel(tournament: Tournament, round_number: int, board: int) -> Channel:
    """The channel the chain writes for a pairing: running from turn 0, each player holding the games in points."""
    fixed = match_fixed(tournament, round_number, board)
    identity = channel_id(fixed)
    points = match_points(tournament.game, tournament.first_to) * MATCH_STAKE
    app = APPS[fixed.app]
    first = encode_state(State(identity, 0, False, app.initial, (points, points)), app.encode)
    return Channel(identity, fixed, RUNNING, (True, True), 2 * points, 0, first, None, None)


def played(pairing: Pairing) -> bool:
    """Whether the pairing has two players, and so a channel."""
    return pairing.white is not None and pairing.black is not None
