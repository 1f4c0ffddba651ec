"""XO games as the client reads them from state, and the moves they allow.

This is a reader's view, deliberately lenient where the processor is strict: a
malformed entry in state is the chain's problem, not the player's, so it is
reported and skipped instead of stopping ``xo list`` from showing every other
game. The rules mirrored in ``refuse_*`` are the XO specification's, checked
before submitting so that a move that cannot succeed is never signed and sent.
"""

from __future__ import annotations

from typing import NamedTuple

EMPTY = "-"
MARKS = "XO"
NEXT_STATES = ("P1-NEXT", "P2-NEXT")
OVER_STATES = ("P1-WIN", "P2-WIN", "TIE")
STATES = NEXT_STATES + OVER_STATES
BOARD_SIZE = 9
BOARD_CHARS = frozenset(MARKS + EMPTY)
FIELDS = 5


class Game(NamedTuple):
    """One game entry; ``player1``/``player2`` are full public keys, "" until someone joins."""

    name: str
    board: str
    state: str
    player1: str
    player2: str
    address: str

    def as_json(self) -> dict[str, str]:
        """The object ``xo show/list --format json`` print: a stable contract for scripts."""
        return {
            "name": self.name,
            "board": self.board,
            "state": self.state,
            "player1": self.player1,
            "player2": self.player2,
            "address": self.address,
        }

    @property
    def is_over(self) -> bool:
        return self.state in OVER_STATES

    @property
    def next_player(self) -> int | None:
        """1 or 2 for the player to move, None once the game is over."""
        if self.state == "P1-NEXT":
            return 1
        if self.state == "P2-NEXT":
            return 2
        return None

    def player_key(self, number: int) -> str:
        return self.player1 if number == 1 else self.player2


def decode_games(address: str, data: bytes) -> tuple[list[Game], list[str]]:
    """Read every game stored at ``address``; return them with a note per malformed entry.

    Colliding games share an address as ``entry|entry|...``; since names can hold
    neither ``,`` nor ``|``, splitting on them is unambiguous.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return [], [f"state at {address} is not UTF-8 text"]
    games: list[Game] = []
    problems: list[str] = []
    for entry in text.split("|"):
        fields = entry.split(",")
        if len(fields) != FIELDS:
            problems.append(f"state at {address} holds an entry with {len(fields)} fields instead of {FIELDS}")
            continue
        name, board, state, player1, player2 = fields
        if not name or len(board) != BOARD_SIZE or not set(board) <= BOARD_CHARS or state not in STATES:
            problems.append(f"state at {address} holds a malformed game entry {entry[:80]!r}")
            continue
        games.append(Game(name, board, state, player1, player2, address))
    return games, problems


def find_game(games: list[Game], name: str) -> Game | None:
    return next((game for game in games if game.name == name), None)


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a legal game name under the specification, if it is not."""
    if not name:
        return "a game name cannot be empty"
    if "|" in name:
        return f"a game name cannot contain '|': {name!r}"
    return None


def refuse_create(name: str, game: Game | None) -> str | None:
    if game is not None:
        return f"game {name!r} already exists ({game.state})"
    return None


def refuse_delete(name: str, game: Game | None) -> str | None:
    if game is None:
        return f"there is no game named {name!r}"
    return None


def refuse_take(name: str, game: Game | None, player_key: str, space: int) -> str | None:
    """Why ``player_key`` cannot take ``space`` in ``game`` now, or None if the move is legal.

    A seat whose key is still empty is open to anyone, including the other
    player: that is how the specification lets a game begin.
    """
    if game is None:
        return f"there is no game named {name!r} (create it with 'xo create {name}')"
    number = game.next_player
    if number is None:
        return f"game {name!r} is over ({game.state})"
    seat_key = game.player_key(number)
    if seat_key and seat_key != player_key:
        return f"it is not your turn in game {name!r}: player {number} ({shorten(seat_key)}) plays next"
    if game.board[space - 1] != EMPTY:
        return f"space {space} of game {name!r} is already taken by {game.board[space - 1]}"
    return None


def shorten(key: str, length: int = 8) -> str:
    """A public key cut to a recognisable prefix for people; scripts get full keys in JSON."""
    return key if len(key) <= length else key[:length] + "..."
