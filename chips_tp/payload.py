"""chips payloads: canonical CBOR maps such as ``{"op": "finalize", "channel": h'...'}``, to checked ops and back.

Every way a payload can be wrong is an :class:`InvalidPayload` (the SDK's
``InvalidTransaction``) saying what to fix; nothing else leaves :func:`parse_payload`.
Off-chain states travel as byte strings: the rules decode them with the channel's app.
"""

from collections.abc import Mapping
from typing import Final

from sawtooth_sdk.processor.exceptions import InvalidTransaction

from chips_tp.channel import APPS, ID_BYTES, MAX_DURATION, MAX_NONCE, MIN_DURATION, SIGNATURE_BYTES, short
from chips_tp.channel_state import amount
from chips_tp.ops import (
    OPS,
    Cancel,
    Challenge,
    Checkpoint,
    Conclude,
    Finalize,
    Issue,
    Join,
    Op,
    Open,
    Respond,
    SignedState,
    Transfer,
)  # fmt: skip
from chips_tp.tournament_ops import TOURNAMENT_OPS
from chips_tp.tournament_payload import FIELDS as TOURNAMENT_FIELDS
from chips_tp.tournament_payload import tournament_fields, tournament_op
from xo_core import canonical
from xo_core.canonical import Malformed
from xo_core.public_keys import DESCRIPTION as KEY_DESCRIPTION
from xo_core.public_keys import NOT_ON_CURVE, is_compressed_public_key, is_curve_point

#: Largest payload accepted, checked before decoding; a challenge with two states is under 1,000 bytes.
MAX_PAYLOAD_BYTES: Final = 4096
#: Most states in a proof: one signed by both, or two consecutive ones each signed by its mover.
MAX_PROOF: Final = 2
FORMAT_HINT: Final = 'a chips payload is a CBOR map such as {"op": "transfer", "to": "02...", "amount": 5}'
OP_LIST: Final = ", ".join(list(OPS)[:-1]) + " or " + list(OPS)[-1]

#: The fields of each op's payload besides ``op``.
FIELDS: Final[dict[str, tuple[str, ...]]] = {
    Issue.NAME: ("to", "amount"),
    Transfer.NAME: ("to", "amount"),
    Open.NAME: ("app", "nonce", "stake", "deposits", "duration", "opponent"),
    Join.NAME: ("channel", "expected_held"),
    Cancel.NAME: ("channel",),
    Conclude.NAME: ("state", "channel"),
    Challenge.NAME: ("proof", "channel", "signature"),
    Checkpoint.NAME: ("proof", "channel"),
    Respond.NAME: ("state", "channel"),
    Finalize.NAME: ("channel",),
    **TOURNAMENT_FIELDS,
}


class InvalidPayload(InvalidTransaction):
    """A payload that is not a well-formed chips operation."""


def parse_payload(payload: bytes) -> Op:
    """Check ``payload`` against the specification and return the operation it asks for.

    In this order: size, CBOR, a map, its ``op``, the op's fields and their values, and
    last whether the bytes are the canonical encoding of all that.
    """
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise InvalidPayload(f"the payload is {len(payload)} bytes; a chips payload is at most {MAX_PAYLOAD_BYTES}")
    try:
        value = canonical.decode(payload, "the payload")
    except Malformed as error:
        raise InvalidPayload(f"{error}; {FORMAT_HINT}") from None
    if not isinstance(value, dict):
        raise InvalidPayload(f"the payload must be a CBOR map, not {canonical.describe(value)}; {FORMAT_HINT}")
    op_name = value.get("op")
    if not isinstance(op_name, str) or op_name not in OPS:
        shown = "no 'op'" if "op" not in value else f"unknown op {canonical.describe(op_name)}"
        raise InvalidPayload(f"the payload has {shown}; the ops are {OP_LIST}")
    try:
        op = _op(op_name, canonical.fields(value, f"the {op_name} payload", ("op", *FIELDS[op_name])))
        canonical.check_canonical(value, payload, "the payload")
    except Malformed as error:
        raise InvalidPayload(f"{op_name}: {error}") from None
    return op


def _op(op_name: str, fields: Mapping[str, object]) -> Op:
    if op_name in TOURNAMENT_FIELDS:
        return tournament_op(op_name, fields)
    match op_name:
        case Issue.NAME | Transfer.NAME:
            return OPS[op_name](_key(fields["to"], "'to'"), amount(fields["amount"], "'amount'", 1))  # type: ignore[call-arg]
        case Open.NAME:
            deposits = canonical.array(fields["deposits"], "'deposits'", 2)
            if len(deposits) != 2:
                raise Malformed(f"'deposits' must list 2 amounts, not {len(deposits)}")
            return Open(
                _key(fields["opponent"], "'opponent'"),
                canonical.choice(fields["app"], "'app'", APPS),
                amount(fields["stake"], "'stake'", 1),
                (amount(deposits[0], "a deposit"), amount(deposits[1], "a deposit")),
                canonical.whole_number(fields["duration"], "'duration'", MIN_DURATION, MAX_DURATION, " of seconds"),
                canonical.whole_number(fields["nonce"], "'nonce'", 0, MAX_NONCE),
            )
    channel = canonical.byte_string(fields["channel"], "'channel'", ID_BYTES)
    match op_name:
        case Join.NAME:
            return Join(channel, amount(fields["expected_held"], "'expected_held'"))
        case Conclude.NAME:
            return Conclude(channel, _signed(fields["state"], "'state'"))
        case Respond.NAME:
            return Respond(channel, _signed(fields["state"], "'state'"))
        case Challenge.NAME:
            return Challenge(
                channel,
                _proof(fields["proof"]),
                canonical.byte_string(fields["signature"], "'signature'", SIGNATURE_BYTES),
            )
        case Checkpoint.NAME:
            return Checkpoint(channel, _proof(fields["proof"]))
        case Cancel.NAME:
            return Cancel(channel)
    return Finalize(channel)


def _key(value: object, what: str) -> str:
    """A key the payload names; one that is not a curve point is refused, since nobody could ever sign for it."""
    if not isinstance(value, str) or not is_compressed_public_key(value):
        raise Malformed(f"{what} must be {KEY_DESCRIPTION}, not {canonical.describe(value)}")
    if not is_curve_point(value):
        raise Malformed(f"{what} ({short(value)}) {NOT_ON_CURVE}")
    return value


def _proof(value: object) -> tuple[SignedState, ...]:
    states = canonical.array(value, "'proof'", MAX_PROOF)
    if not states:
        raise Malformed("'proof' must hold 1 or 2 signed states, not none")
    return tuple(_signed(state, f"state {index + 1} of 'proof'") for index, state in enumerate(states))


def _signed(value: object, what: str) -> SignedState:
    fields = canonical.fields(value, what, ("state", "signatures"))
    state = fields["state"]
    if not isinstance(state, bytes):
        raise Malformed(
            f"the 'state' of {what} must be a byte string (the state's canonical CBOR), not {canonical.describe(state)}"
        )
    signatures = canonical.array(fields["signatures"], f"the 'signatures' of {what}", 2)
    if len(signatures) != 2:
        raise Malformed(f"the 'signatures' of {what} must list 2 entries (a signature or null per participant)")
    first, second = (
        None if signature is None else canonical.byte_string(signature, f"a signature in {what}", SIGNATURE_BYTES)
        for signature in signatures
    )
    return SignedState(state, (first, second))


def encode_signed(signed: SignedState) -> dict[str, object]:
    """A signed state as payloads hold it."""
    return {"state": signed.state, "signatures": list(signed.signatures)}


def encode_payload(op: Op) -> bytes:
    """The canonical payload of ``op``, as a client sends it (unchecked: :func:`parse_payload` checks)."""
    value: dict[str, object] = {"op": op.NAME}
    match op:
        case Issue() | Transfer():
            value.update(to=op.to, amount=op.amount)
        case Open():
            value.update(
                app=op.app, nonce=op.nonce, stake=op.stake, deposits=list(op.deposits), duration=op.duration,
                opponent=op.opponent,
            )  # fmt: skip
        case Join():
            value.update(channel=op.channel, expected_held=op.expected_held)
        case Conclude() | Respond():
            value.update(channel=op.channel, state=encode_signed(op.state))
        case Challenge():
            value.update(channel=op.channel, proof=[encode_signed(s) for s in op.proof], signature=op.signature)
        case Checkpoint():
            value.update(channel=op.channel, proof=[encode_signed(s) for s in op.proof])
        case _ if isinstance(op, TOURNAMENT_OPS):
            value.update(tournament_fields(op))
        case _:
            value["channel"] = op.channel
    return canonical.encode(value)
