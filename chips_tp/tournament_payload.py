"""Tournament payloads: the fields of each tournament op read from a checked map, and written back. Pure.

:mod:`chips_tp.payload` decodes the CBOR, finds the op and checks canonical form; this
module only reads and writes the tournament ops' own fields.
"""

from collections.abc import Mapping
from typing import Final

from chips_tp.channel import APPS, MAX_DURATION
from chips_tp.channel_state import amount
from chips_tp.tournament import (
    FORMATS,
    MAX_FIRST_TO,
    MAX_PLAYERS,
    MAX_PRIZES,
    MAX_SWISS_ROUNDS,
    MIN_PLAYERS,
    MIN_ROUND_SECONDS,
    name_problem,
)  # fmt: skip
from chips_tp.tournament_ops import Advance, Create, Enter, Leave, Result, Start, TournamentOp
from xo_core import canonical
from xo_core.canonical import Malformed

FIELDS: Final[dict[str, tuple[str, ...]]] = {
    Create.NAME: ("game", "name", "format", "prizes", "rounds", "buy_in", "players", "first_to", "join_seconds",
                  "round_seconds"),
    Enter.NAME: ("buy_in", "tournament"),
    Leave.NAME: ("tournament",),
    Start.NAME: ("tournament",),
    Result.NAME: ("board", "round", "tournament"),
    Advance.NAME: ("tournament",),
}


def tournament_op(op_name: str, fields: Mapping[str, object]) -> TournamentOp:
    """The tournament op ``op_name`` with ``fields``; :class:`Malformed` saying what is wrong."""
    if op_name == Create.NAME:
        players = canonical.array(fields["players"], "'players'", 2)
        if len(players) != 2:
            raise Malformed("'players' must list 2 numbers, the fewest and the most")
        count = (canonical.whole_number(players[0], "the fewest players", MIN_PLAYERS, MAX_PLAYERS),
                 canonical.whole_number(players[1], "the most players", MIN_PLAYERS, MAX_PLAYERS))  # fmt: skip
        prizes = canonical.array(fields["prizes"], "'prizes'", MAX_PRIZES)
        return Create(
            _name(fields["name"], "'name'"),
            canonical.choice(fields["game"], "'game'", APPS),
            canonical.choice(fields["format"], "'format'", FORMATS),
            canonical.whole_number(fields["rounds"], "'rounds'", 0, MAX_SWISS_ROUNDS),
            amount(fields["buy_in"], "'buy_in'", 1),
            count,
            canonical.whole_number(fields["join_seconds"], "'join_seconds'", 1, MAX_DURATION, " of seconds"),
            canonical.whole_number(
                fields["round_seconds"], "'round_seconds'", MIN_ROUND_SECONDS, MAX_DURATION, " of seconds"
            ),
            tuple(canonical.whole_number(p, "a prize", 0, 100, " percent") for p in prizes),
            canonical.whole_number(fields["first_to"], "'first_to'", 0, MAX_FIRST_TO, " of round wins"),
        )
    name = _name(fields["tournament"], "'tournament'")
    match op_name:
        case Enter.NAME:
            return Enter(name, amount(fields["buy_in"], "'buy_in'", 1))
        case Leave.NAME:
            return Leave(name)
        case Start.NAME:
            return Start(name)
        case Result.NAME:
            return Result(
                name,
                canonical.whole_number(fields["round"], "'round'", 1, MAX_SWISS_ROUNDS),
                canonical.whole_number(fields["board"], "'board'", 0, MAX_PLAYERS - 1),
            )
    return Advance(name)


def _name(value: object, what: str) -> str:
    name = canonical.text(value, what)
    problem = name_problem(name)
    if problem:
        raise Malformed(f"{what}: {problem}")
    return name


def tournament_fields(op: TournamentOp) -> dict[str, object]:
    """The payload fields of ``op`` besides ``op``."""
    match op:
        case Create():
            return {
                "game": op.game, "name": op.name, "format": op.format, "prizes": list(op.prizes), "rounds": op.rounds,
                "buy_in": op.buy_in, "players": list(op.players), "join_seconds": op.join_seconds,
                "round_seconds": op.round_seconds, "first_to": op.first_to,
            }  # fmt: skip
        case Enter():
            return {"buy_in": op.buy_in, "tournament": op.tournament}
        case Result():
            return {"board": op.board, "round": op.round, "tournament": op.tournament}
    return {"tournament": op.tournament}
