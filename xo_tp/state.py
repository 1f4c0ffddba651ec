"""The bytes XO keeps at one state address, and back: ``<name>,<board>,<game-state>,<p1>,<p2>``.

Games whose names hash to the same address share it as entries joined by ``|``,
sorted as strings, which is what other XO processors write. A valid entry decodes and
encodes to the same characters, so rewriting a bucket keeps every other game's entry
byte for byte. Bytes that do not parse are a :class:`CorruptState`, the SDK's
``InternalError``: a player cannot have written them, the chain or another writer did.
"""

from collections.abc import Iterable
from typing import Final

from sawtooth_sdk.processor.exceptions import InternalError

from xo_core.text import quoted
from xo_tp.rules import BOARD_LENGTH, GAME_STATES, MARKS, Game

ENTRY_SEPARATOR: Final = "|"
FIELD_SEPARATOR: Final = ","


class CorruptState(InternalError):
    """State bytes at an XO address that are not a valid bucket of games."""


def encode_game(game: Game) -> str:
    """One game's state entry."""
    return FIELD_SEPARATOR.join(game)


def encode_bucket(games: Iterable[Game]) -> bytes:
    """The bytes stored at an address holding ``games`` (which must have distinct names)."""
    return ENTRY_SEPARATOR.join(sorted(map(encode_game, games))).encode("utf-8")


def decode_game(address: str, entry: str) -> Game:
    """Parse one state entry found at ``address``; the address only names the culprit in errors."""
    fields = entry.split(FIELD_SEPARATOR)
    if len(fields) != 5:
        raise CorruptState(f"state at {address}: entry {quoted(entry)} should have 5 fields but has {len(fields)}")
    name, board, game_state, _, _ = fields
    if not name:
        raise CorruptState(f"state at {address}: entry {quoted(entry)} has an empty game name")
    if len(board) != BOARD_LENGTH or board.strip(MARKS):
        raise CorruptState(f"state at {address}: game {quoted(name)} has an invalid board {quoted(board)}")
    if game_state not in GAME_STATES:
        raise CorruptState(f"state at {address}: game {quoted(name)} has an unknown state {quoted(game_state)}")
    return Game(*fields)


def decode_bucket(address: str, data: bytes) -> dict[str, Game]:
    """The games stored at ``address`` by name; empty data is an empty address.

    Entries are accepted in any order (encoding sorts them again) but never twice
    under one name: two different games for one name leave no right answer.
    """
    if not data:
        return {}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CorruptState(f"state at {address} is not UTF-8 text") from None
    games: dict[str, Game] = {}
    for entry in text.split(ENTRY_SEPARATOR):
        game = decode_game(address, entry)
        if game.name in games:
            raise CorruptState(f"state at {address} holds game {quoted(game.name)} twice")
        games[game.name] = game
    return games
