"""XO games as the client reads them from state, and the moves they allow.

The checks made before submitting are the processor's own (``xo_tp.rules``,
``xo_tp.payload``, ``xo_tp.state``), run on the game as it stands: a move the
processor would reject is never signed and sent, and the player reads the very
reason the validator would have given. Reading is lenient where the processor is
strict: a malformed entry is the chain's problem, not the player's, so it is
reported and skipped instead of stopping ``xo list`` from showing every other game.
"""

from __future__ import annotations

from typing import NamedTuple

from client_core.errors import InvalidInput
from client_core.keys import KeyNames
from client_core.receipts import written_entry
from client_core.rest import RestClient
from client_core.runner import warn
from xo_core.text import game_label, printable, quoted, shell_word, short_key
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


def refuse_create(name: str, game: Game | None) -> str | None:
    """Why ``name`` cannot be created, or None: the processor refuses a name already in use."""
    if game is not None:
        return f"game {quoted(name)} already exists ({game.state})"
    return None


def refuse_delete(name: str, game: Game | None) -> str | None:
    """Why ``name`` cannot be deleted, or None: the processor refuses to delete what does not exist."""
    if game is None:
        return f"there is no game named {quoted(name)}"
    return None


def refuse_take(
    name: str,
    game: Game | None,
    player_key: str,
    space: int,
    *,
    names: KeyNames | None = None,
    both_seats: bool = False,
) -> str | None:
    """Why ``player_key`` cannot (or, without ``both_seats``, should not) take ``space`` in ``game``; None if it may.

    The rules' own refusal comes first, worded with the key's name when the key
    directory knows it ("it is bob's turn"). A legal move can still be a slip: the
    key that holds player 1's seat taking player 2's locks the game to that one key
    for good, since a seat is never given up. That is refused unless ``both_seats``.
    """
    if game is None:
        return f"there is no game named {quoted(name)} (create it with 'xo create {shell_word(name)}')"
    try:
        rules.take(rules.Game(game.name, game.board, game.state, game.player1, game.player2), space, player_key)
    except rules.NotYourTurn as refusal:
        seated = names.name(refusal.seat) if names is not None else None
        if seated is None:
            return str(refusal)
        return f"{game_label(name)}: it is {printable(seated)}'s turn (player {refusal.number}, " \
            f"{printable(short_key(refusal.seat))})"
    except rules.IllegalMove as refusal:
        return str(refusal)
    if not both_seats and game.state == rules.P2_NEXT and not game.player2 and game.player1 == player_key:
        return (
            f"{game_label(name)}: your key already holds player 1's seat (X), and this move would give it "
            "player 2's seat (O) too, so that nobody else could ever join; to play both sides on purpose, "
            "add --both-seats"
        )
    return None


def check_name(name: str, *, validate: bool) -> None:
    """Refuse a name no payload can carry (a ``,``) and, when ``validate``, one the specification forbids.

    Forbidden names are sent with ``--no-validate``, so that the validator can be seen rejecting them.
    """
    if "," in name:
        raise InvalidInput(f"a game name cannot contain ',' (it separates the payload's fields): {quoted(name)}")
    if validate and (problem := name_problem(name)):
        raise InvalidInput(problem)


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
