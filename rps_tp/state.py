"""The bytes rps keeps at one state address, and back: a canonical CBOR array of game maps, sorted by name.

Games whose names hash to the same address share it, sorted by the UTF-8 bytes of
their names, so every processor writes the same bytes for the same games and
rewriting one game keeps its neighbours byte for byte. Bytes that are not such an
array -- not CBOR, not canonical, a field missing or of the wrong kind, a game the
rules could never have produced -- are a :class:`CorruptState`, the SDK's
``InternalError``: a player cannot have written them, the chain or another writer did.
"""

from collections.abc import Callable, Iterable, Mapping
from sys import maxsize
from typing import Final, TypeVar

from sawtooth_sdk.processor.exceptions import InternalError

from rps_tp.game import (
    COMMITMENT_BYTES,
    CONCLUSION_TYPES,
    MAX_ROUNDS,
    MAX_TIMEOUT,
    MIN_TIMEOUT,
    OUTCOMES,
    POINTS_OBJECTIVES,
    SEATS,
    STATES,
    THROWS,
    Game,
    Player,
    Result,
    Settings,
    consistency_problem,
)
from xo_core import canonical
from xo_core.canonical import Malformed
from xo_core.public_keys import DESCRIPTION as KEY_DESCRIPTION
from xo_core.public_keys import is_compressed_public_key
from xo_core.text import quoted

#: The fields of each map, in canonical order (shorter keys first, then bytewise), the order the encoder writes.
GAME_FIELDS: Final = (
    "host",
    "name",
    "round",
    "state",
    "history",
    "players",
    "results",
    "settings",
    "waiting_since",
    "conclusion_type",
)
PLAYER_FIELDS: Final = ("key", "ready", "score", "throw", "commitment")
RESULT_FIELDS: Final = ("outcome", "final_score")
T = TypeVar("T")
#: Timestamps are BlockInfo's ``uint64``.
MAX_TIMESTAMP: Final = 2**64 - 1


class CorruptState(InternalError):
    """State bytes at an rps address that are not a valid bucket of games."""


def game_value(game: Game) -> dict[str, object]:
    """``game`` as the CBOR map the state holds, every map's keys already in canonical order."""
    return {
        "host": game.host,
        "name": game.name,
        "round": game.round,
        "state": game.state,
        "history": [list(throws) for throws in game.history],
        "players": [
            {
                "key": player.key,
                "ready": player.ready,
                "score": player.score,
                "throw": player.throw,
                "commitment": player.commitment,
            }
            for player in game.players
        ],
        "results": (
            None
            if game.results is None
            else [{"outcome": result.outcome, "final_score": result.final_score} for result in game.results]
        ),
        "settings": {"points": game.settings.points, "timeout": game.settings.timeout},
        "waiting_since": game.waiting_since,
        "conclusion_type": game.conclusion_type,
    }


def encode_game(game: Game) -> bytes:
    """One game's canonical CBOR map: what an event carries as its data."""
    return canonical.encode_ordered(game_value(game))


def encode_bucket(games: Iterable[Game]) -> bytes:
    """The bytes stored at an address holding ``games`` (at least one, with distinct names)."""
    ordered = sorted(games, key=lambda game: game.name.encode("utf-8"))
    return canonical.encode_ordered([game_value(game) for game in ordered])


def decode_bucket(address: str, data: bytes) -> dict[str, Game]:
    """The games stored at ``address`` by name; empty data is an empty address.

    The address only names the culprit in errors.
    """
    if not data:
        return {}
    try:
        value = canonical.decode(data, "the data")
        items = canonical.array(value, "the data", maxsize)
        if not items:
            raise Malformed("the data is an empty array (an address without games holds no data)")
        games: dict[str, Game] = {}
        for item in items:
            game = _game(item)
            if game.name in games:
                raise Malformed(f"the data holds game {quoted(game.name)} twice")
            games[game.name] = game
        if encode_bucket(games.values()) != data:  # the one encoding of these games: anything else is refused
            canonical.check_canonical(value, data, "the data")
            raise Malformed("the games are not sorted by name")
    except Malformed as error:
        raise CorruptState(f"state at {address}: {error}") from None
    return games


def _game(value: object) -> Game:
    fields = canonical.fields(value, "a game", GAME_FIELDS)
    name = canonical.text(fields["name"], "a game's 'name'")
    try:
        game = Game(
            name=name,
            state=canonical.choice(fields["state"], "'state'", STATES),
            host=_optional(fields["host"], _key, "'host'"),
            settings=_settings(fields["settings"]),
            players=tuple(_player(item) for item in canonical.array(fields["players"], "'players'", SEATS)),
            round=canonical.whole_number(fields["round"], "'round'", 0, MAX_ROUNDS),
            history=tuple(_throws(item) for item in canonical.array(fields["history"], "'history'", MAX_ROUNDS)),
            waiting_since=_optional(fields["waiting_since"], _timestamp, "'waiting_since'"),
            conclusion_type=_optional(fields["conclusion_type"], _conclusion_type, "'conclusion_type'"),
            results=_optional(fields["results"], _results, "'results'"),
        )
        problem = consistency_problem(game)
        if problem:
            raise Malformed(problem)
    except Malformed as error:
        raise Malformed(f"game {quoted(name)}: {error}") from None
    return game


def _optional(value: object, read: Callable[[object, str], T], what: str) -> T | None:
    return None if value is None else read(value, what)


def _key(value: object, what: str) -> str:
    key = canonical.text(value, what)
    if not is_compressed_public_key(key):
        raise Malformed(f"{what} {quoted(key)} is not {KEY_DESCRIPTION}")
    return key


def _timestamp(value: object, what: str) -> int:
    return canonical.whole_number(value, what, 0, MAX_TIMESTAMP)


def _conclusion_type(value: object, what: str) -> str:
    return canonical.choice(value, what, CONCLUSION_TYPES)


def _settings(value: object) -> Settings:
    fields = canonical.fields(value, "'settings'", ("points", "timeout"))
    return Settings(
        canonical.whole_number(fields["points"], "'points'", POINTS_OBJECTIVES[0], POINTS_OBJECTIVES[-1]),
        canonical.whole_number(fields["timeout"], "'timeout'", MIN_TIMEOUT, MAX_TIMEOUT),
    )


def _player(value: object) -> Player:
    fields = canonical.fields(value, "a player", PLAYER_FIELDS)
    return Player(
        key=_key(fields["key"], "a player's 'key'"),
        ready=canonical.flag(fields["ready"], "'ready'"),
        score=canonical.whole_number(fields["score"], "'score'", 0, MAX_ROUNDS),
        commitment=_optional(fields["commitment"], _commitment, "'commitment'"),
        throw=_optional(fields["throw"], _throw, "'throw'"),
    )


def _commitment(value: object, what: str) -> bytes:
    return canonical.byte_string(value, what, COMMITMENT_BYTES)


def _throw(value: object, what: str) -> str:
    return canonical.choice(value, what, THROWS)


def _throws(value: object) -> tuple[str, str]:
    throws = canonical.array(value, "a round in 'history'", SEATS)
    if len(throws) != SEATS:
        raise Malformed(f"a round in 'history' has {len(throws)} throws, not {SEATS}")
    return _throw(throws[0], "a throw in 'history'"), _throw(throws[1], "a throw in 'history'")


def _results(value: object, what: str) -> tuple[Result, ...]:
    items = canonical.array(value, what, SEATS)
    return tuple(_result(item) for item in items)


def _result(value: object) -> Result:
    fields: Mapping[str, object] = canonical.fields(value, "a result", RESULT_FIELDS)
    return Result(
        outcome=canonical.choice(fields["outcome"], "'outcome'", OUTCOMES),
        final_score=canonical.whole_number(fields["final_score"], "'final_score'", 0, MAX_ROUNDS),
    )
