"""rps payloads, canonical CBOR maps such as ``{"op": "resign", "name": "g1", "round": 2, "phase": "commit"}``.

They become checked ops here, and ops become payloads (:func:`encode_payload`).

Every way a payload can be wrong is an :class:`InvalidPayload`, the SDK's
``InvalidTransaction``: it came from a player, so the player is told what to fix.
Nothing else ever escapes :func:`parse_payload`, whatever the bytes.
"""

from collections.abc import Mapping
from typing import Final

from sawtooth_sdk.processor.exceptions import InvalidTransaction

from rps_tp.family import FAMILY_VERSION
from rps_tp.game import (
    COMMITMENT_BYTES,
    MAX_ROUNDS,
    MAX_TIMEOUT,
    MIN_TIMEOUT,
    PHASES,
    POINTS_OBJECTIVES,
    SALT_BYTES,
    THROWS,
    Moment,
    Settings,
    moment_problem,
    name_problem,
)
from rps_tp.ops import OPS, Claim, Commit, Create, Delete, Join, OnGame, Op, Ready, Resign, Reveal, Setup
from xo_core import canonical
from xo_core.canonical import Malformed
from xo_core.text import game_label

#: Largest payload accepted, checked before decoding; the largest valid one is under 300 bytes.
MAX_PAYLOAD_BYTES: Final = 1024
FORMAT_HINT: Final = 'an rps payload is a CBOR map such as {"op": "create", "name": "g1"}'
OP_LIST: Final = ", ".join(list(OPS)[:-1]) + " or " + list(OPS)[-1]
PHASE_LIST: Final = ", ".join(PHASES[:-1]) + " or " + PHASES[-1]

#: What every op on an existing game names: the moment of the game it was signed for.
MOMENT_FIELDS: Final = ("round", "phase")
#: The fields of each op's payload beyond ``op`` and ``name``: (required, optional).
FIELDS: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    Create.NAME: ((), ("join", "settings")),
    Join.NAME: (MOMENT_FIELDS, ()),
    Setup.NAME: ((*MOMENT_FIELDS, "settings"), ()),
    Ready.NAME: ((*MOMENT_FIELDS, "settings"), ()),
    Commit.NAME: ((*MOMENT_FIELDS, "commitment"), ()),
    Reveal.NAME: ((*MOMENT_FIELDS, "throw", "salt"), ()),
    Resign.NAME: (MOMENT_FIELDS, ()),
    Claim.NAME: (MOMENT_FIELDS, ()),
    Delete.NAME: (MOMENT_FIELDS, ()),
}


class InvalidPayload(InvalidTransaction):
    """A payload that is not a well-formed rps operation."""


def parse_payload(payload: bytes) -> Op:
    """Check ``payload`` against the specification and return the operation it asks for.

    The checks run in this order, so that a player hears about the first problem a
    person would see: size, CBOR, a map, its ``op``, its ``name``, the op's fields and
    their values, and last whether the bytes are the canonical encoding of all that.
    """
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise InvalidPayload(f"the payload is {len(payload)} bytes; an rps payload is at most {MAX_PAYLOAD_BYTES}")
    try:
        value = canonical.decode(payload, "the payload")
    except Malformed as error:
        raise InvalidPayload(f"{error}; {FORMAT_HINT}") from None
    if not isinstance(value, dict):
        raise InvalidPayload(f"the payload must be a CBOR map, not {canonical.describe(value)}; {FORMAT_HINT}")
    if "op" not in value:
        raise InvalidPayload(f"the payload has no 'op'; the ops are {OP_LIST}")
    op_name = value["op"]
    if not isinstance(op_name, str) or op_name not in OPS:
        raise InvalidPayload(f"unknown op {canonical.describe(op_name)}; the ops are {OP_LIST}")
    if "name" not in value:
        raise InvalidPayload("the payload has no 'name' (the game's name)")
    name = value["name"]
    if not isinstance(name, str):
        raise InvalidPayload(f"the game name must be text, not {canonical.describe(name)}")
    problem = name_problem(name)
    if problem:
        raise InvalidPayload(problem)
    try:
        op = _op(op_name, name, value)
        canonical.check_canonical(value, payload, "the payload")
    except Malformed as error:
        raise InvalidPayload(f"{game_label(name)}: {error}") from None
    return op


def _op(op_name: str, name: str, value: Mapping[str, object]) -> Op:
    required, optional = FIELDS[op_name]
    if op_name == Create.NAME:
        payload = canonical.fields(value, "a create payload", ("op", "name"), optional)
        join = canonical.flag(payload["join"], "'join'") if "join" in payload else True
        settings = _settings(payload["settings"]) if "settings" in payload else None
        return Create(name, join, settings)
    _check_moment_named(op_name, value)
    payload = canonical.fields(value, f"a {op_name} payload", ("op", "name", *required), optional)
    at = _moment(payload["round"], payload["phase"])
    match op_name:
        case Setup.NAME:
            return Setup(name, at, _settings(payload["settings"]))
        case Ready.NAME:
            return Ready(name, at, _settings(payload["settings"]))
        case Commit.NAME:
            return Commit(name, at, canonical.byte_string(payload["commitment"], "'commitment'", COMMITMENT_BYTES))
        case Reveal.NAME:
            return Reveal(
                name,
                at,
                canonical.choice(payload["throw"], "'throw'", THROWS),
                canonical.byte_string(payload["salt"], "'salt'", SALT_BYTES),
            )
        case Join.NAME:
            return Join(name, at)
        case Resign.NAME:
            return Resign(name, at)
        case Claim.NAME:
            return Claim(name, at)
    return Delete(name, at)


def _check_moment_named(op_name: str, value: Mapping[str, object]) -> None:
    """Refuse an op on a game that does not name the moment it was signed for, saying what it must name.

    This is the form of rps 1.0 (its ops, but for commit and reveal, named no round and
    no phase), so the message says what this version expects rather than only "no field".
    """
    missing = [key for key in MOMENT_FIELDS if key not in value]
    if missing:
        raise Malformed(
            f"a {op_name} payload has no {' or '.join(repr(key) for key in missing)}: in rps {FAMILY_VERSION} "
            f"every op on an existing game names the 'round' (0 to {MAX_ROUNDS}) and 'phase' ({PHASE_LIST}) "
            "of the game it was signed for, and counts only then"
        )


def _moment(round_value: object, phase_value: object) -> Moment:
    moment = Moment(
        canonical.whole_number(round_value, "'round'", 0, MAX_ROUNDS),
        canonical.choice(phase_value, "'phase'", PHASES),
    )
    problem = moment_problem(moment)
    if problem:
        raise Malformed(problem)
    return moment


def _settings(value: object) -> Settings:
    settings = canonical.fields(value, "'settings'", ("points", "timeout"))
    return Settings(
        canonical.whole_number(settings["points"], "'points'", POINTS_OBJECTIVES[0], POINTS_OBJECTIVES[-1]),
        canonical.whole_number(settings["timeout"], "'timeout'", MIN_TIMEOUT, MAX_TIMEOUT, " of seconds"),
    )


def encode_payload(op: Op) -> bytes:
    """The canonical payload of ``op``, as a client sends it.

    A create leaves out ``join`` when it is true and ``settings`` when they are the
    defaults (``None``). It does not check the op: a client that wants to know whether
    the processor will accept the payload runs :func:`parse_payload` on it.
    """
    value: dict[str, object] = {"op": op.NAME, "name": op.name}
    match op:
        case Create():
            if not op.join:
                value["join"] = False
            if op.settings is not None:
                value["settings"] = op.settings._asdict()
        case Setup() | Ready():
            value["settings"] = op.settings._asdict()
        case Commit():
            value["commitment"] = op.commitment
        case Reveal():
            value.update(throw=op.throw, salt=op.salt)
        case _:
            pass
    if isinstance(op, OnGame):
        value.update(round=op.at.round, phase=op.at.phase)
    return canonical.encode(value)
