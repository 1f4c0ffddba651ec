"""The checks made before an rps op is signed: the processor's own, on the game as it stands.

The payload codec (:func:`rps_tp.payload.parse_payload`) and the rules
(:func:`rps_tp.rules.apply_op`) are run as the processor will run them, so an op the
processor would refuse is never signed and sent, and the player reads the very
reason the validator would give.
"""

from __future__ import annotations

from sawtooth_sdk.processor.exceptions import InvalidTransaction

from rps_tp import rules
from rps_tp.game import Game
from rps_tp.ops import Op
from rps_tp.payload import encode_payload, parse_payload


def payload_problem(op: Op) -> str | None:
    """Why the processor would refuse ``op``'s payload (a bad name, settings out of range), or ``None``."""
    try:
        parse_payload(encode_payload(op))
    except InvalidTransaction as problem:
        return str(problem)
    return None


def refusal(game: Game | None, op: Op, signer: str, now: int | None = None) -> str | None:
    """Why the processor would refuse ``op`` signed by ``signer`` on ``game`` as it stands, or ``None``.

    ``now`` is the chain's time, which only a claim reads; ``None`` means a network
    without BlockInfo, where no claim can succeed.
    """
    problem = payload_problem(op)
    if problem:
        return problem
    try:
        rules.apply_op(game, op, signer, now)
    except InvalidTransaction as problem:
        return str(problem)
    return None
