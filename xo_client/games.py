"""XO games as the client reads them from state, and the game a committed move left.

The checks made before a move is signed are in :mod:`xo_client.checks`. Reading is
lenient where the processor is strict: a malformed entry is the chain's problem, not the player's, so it is
reported and skipped instead of stopping ``xo list`` from showing every other game.
"""

from __future__ import annotations

from typing import NamedTuple

from client_core.receipts import written_entry
from client_core.rest import RestClient
from client_core.runner import warn
from xo_core.text import game_label, quoted
from xo_tp import rules
from xo_tp.family import game_address
from xo_tp.payload import CREATE, InvalidPayload, encode_payload, parse_payload
from xo_tp.state import ENTRY_SEPARATOR, CorruptState, decode_game

EMPTY = rules.EMPTY


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
    def next_player(self) -> int | None:
        """1 or 2 for the player to move, None once the game is over."""
        if self.state == rules.P1_NEXT:
            return 1
        if self.state == rules.P2_NEXT:
            return 2
        return None

    def player_key(self, number: int) -> str:
        """The key seated as player ``number`` (1 or 2), "" while the seat is open."""
        return self.player1 if number == 1 else self.player2


def decode_games(address: str, data: bytes) -> tuple[list[Game], list[str]]:
    """Read every game stored at ``address``; return them with a note per malformed entry.

    Empty data holds no games, as the processor reads it: nothing to report.
    """
    if not data:
        return [], []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return [], [f"state at {address} is not UTF-8 text"]
    games: list[Game] = []
    problems: list[str] = []
    for entry in text.split(ENTRY_SEPARATOR):
        try:
            games.append(Game(*decode_game(address, entry), address))
        except CorruptState as problem:
            problems.append(str(problem))
    return games, problems


def find_game(games: list[Game], name: str) -> Game | None:
    """The game called ``name`` among those sharing its address (names can collide on an address)."""
    return next((game for game in games if game.name == name), None)


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a legal game name under the specification, if it is not."""
    try:
        parse_payload(encode_payload(name, CREATE))
    except InvalidPayload as problem:
        return str(problem)
    return None


def impossible_name(name: str) -> str | None:
    """Why no game can ever be called ``name`` (no move could name it), if so: nothing to watch or look up."""
    if "," in name:
        return f"a game name cannot contain ',' (it separates the payload's fields): {quoted(name)}"
    return name_problem(name)


def resulting_game(client: RestClient, transaction_id: str, name: str) -> tuple[bool, Game | None]:
    """``(True, game)`` as the committed transaction left it (``game`` None once deleted); ``(False, None)`` if unknown.

    The move has committed whatever happens here, so a failure to read its receipt
    is a warning, never the command's failure.
    """
    address = game_address(name)
    found, data = written_entry(client, transaction_id, address, tool="xo", what="move", label=game_label(name))
    if data is None:
        return found, None
    games, problems = decode_games(address, data)
    if problems:
        warn("xo", "; ".join(problems))
    return True, find_game(games, name)
