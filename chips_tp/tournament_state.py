"""A tournament's record in canonical CBOR, and back; data that is no record the rules could write is corrupt state.

Decoding checks types and ranges, not the history (that the pairings follow the
rules): only the processor writes these records, and it writes them by the rules.
"""

from collections.abc import Callable
from typing import Final, TypeVar

from sawtooth_sdk.processor.exceptions import InternalError

from chips_tp.channel import APPS, MAX_DURATION, MIN_DURATION
from chips_tp.channel_state import amount
from chips_tp.tournament import (
    FORMATS,
    MAX_FIRST_TO,
    MAX_PLAYERS,
    MAX_PRIZES,
    MAX_SWISS_ROUNDS,
    MIN_PLAYERS,
    MIN_ROUND_SECONDS,
    RESULTS,
    STATUSES,
    Pairing,
    Tournament,
)  # fmt: skip
from xo_core import canonical
from xo_core.canonical import Malformed
from xo_core.public_keys import is_compressed_public_key

_T = TypeVar("_T")
KEYS: Final = (
    "name", "game", "draw", "pool", "round", "buy_in", "format", "payout", "prizes", "rounds", "status", "players",
    "duration", "first_to", "pairings", "organiser", "join_until", "round_ends", "max_players", "min_players",
    "round_seconds",
)  # fmt: skip
MAX_TIME: Final = 2**64 - 1


def encode_tournament(tournament: Tournament) -> bytes:
    """The record's canonical CBOR."""
    t = tournament
    return canonical.encode(
        {
            "name": t.name,
            "game": t.game,
            "draw": t.draw,
            "pool": t.pool,
            "round": t.round,
            "buy_in": t.buy_in,
            "format": t.format,
            "payout": None if t.payout is None else [[key, paid] for key, paid in t.payout],
            "prizes": list(t.prizes),
            "rounds": t.rounds,
            "status": t.status,
            "players": list(t.players),
            "duration": t.duration,
            "first_to": t.first_to,
            "pairings": [[[p.white, p.black, p.result] for p in r] for r in t.pairings],
            "organiser": t.organiser,
            "join_until": t.join_until,
            "round_ends": t.round_ends,
            "max_players": t.max_players,
            "min_players": t.min_players,
            "round_seconds": t.round_seconds,
        }
    )


def decode_tournament(address: str, data: bytes) -> Tournament | None:
    """The record in ``data`` (None if empty); ``InternalError`` if it is not one."""
    if not data:
        return None
    try:
        f = canonical.fields(canonical.decode(data, "the tournament"), "the tournament", KEYS)
        players = tuple(_key(k, "a player") for k in canonical.array(f["players"], "'players'", MAX_PLAYERS))
        tournament = Tournament(
            canonical.text(f["name"], "'name'"),
            canonical.choice(f["game"], "'game'", APPS),
            canonical.choice(f["format"], "'format'", FORMATS),
            canonical.whole_number(f["rounds"], "'rounds'", 0, MAX_SWISS_ROUNDS),
            amount(f["buy_in"], "'buy_in'", 1),
            _key(f["organiser"], "'organiser'"),
            canonical.whole_number(f["min_players"], "'min_players'", MIN_PLAYERS, MAX_PLAYERS),
            canonical.whole_number(f["max_players"], "'max_players'", MIN_PLAYERS, MAX_PLAYERS),
            canonical.whole_number(f["join_until"], "'join_until'", 0, MAX_TIME),
            canonical.whole_number(f["round_seconds"], "'round_seconds'", MIN_ROUND_SECONDS, MAX_DURATION),
            canonical.whole_number(f["duration"], "'duration'", MIN_DURATION, MAX_DURATION),
            tuple(
                canonical.whole_number(p, "a prize", 0, 100)
                for p in canonical.array(f["prizes"], "'prizes'", MAX_PRIZES)
            ),
            canonical.choice(f["status"], "'status'", STATUSES),
            players,
            amount(f["pool"], "'pool'"),
            None if f["draw"] is None else canonical.text(f["draw"], "'draw'"),
            canonical.whole_number(f["round"], "'round'", 0, MAX_SWISS_ROUNDS),
            None if f["round_ends"] is None else canonical.whole_number(f["round_ends"], "'round_ends'", 0, MAX_TIME),
            tuple(_round(r, len(players)) for r in canonical.array(f["pairings"], "'pairings'", MAX_SWISS_ROUNDS)),
            None
            if f["payout"] is None
            else tuple(_paid(p) for p in canonical.array(f["payout"], "'payout'", MAX_PLAYERS)),
            canonical.whole_number(f["first_to"], "'first_to'", 0, MAX_FIRST_TO),
        )
        canonical.check_canonical(f, data, "the tournament")
    except Malformed as error:
        raise InternalError(f"corrupt chips tournament at {address}: {error}") from None
    return tournament


def _key(value: object, what: str) -> str:
    key = canonical.text(value, what)
    if not is_compressed_public_key(key):
        raise Malformed(f"{what} is not a compressed public key")
    return key


def _round(value: object, players: int) -> tuple[Pairing, ...]:
    return tuple(_pairing(p, players) for p in canonical.array(value, "a round", MAX_PLAYERS))


def _pairing(value: object, players: int) -> Pairing:
    items = canonical.array(value, "a pairing", 3)
    if len(items) != 3:
        raise Malformed(f"a pairing has 3 items, not {len(items)}")
    white, black = (_maybe(item, lambda v, w: canonical.whole_number(v, w, 0, players - 1), "a pairing's player")
                    for item in items[:2])  # fmt: skip
    return Pairing(white, black, _maybe(items[2], lambda v, w: canonical.choice(v, w, RESULTS), "a result"))


def _paid(value: object) -> tuple[str, int]:
    items = canonical.array(value, "a payment", 2)
    if len(items) != 2:
        raise Malformed(f"a payment has 2 items, not {len(items)}")
    return _key(items[0], "a payee"), amount(items[1], "a payment")


def _maybe(value: object, read: Callable[[object, str], _T], what: str) -> _T | None:
    return None if value is None else read(value, what)
