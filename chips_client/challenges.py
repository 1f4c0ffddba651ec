"""What a challenge holds the opponent to: the channel as the player's store holds it, and the proof to submit.

Shared by ``chips challenge`` and xo web's page so both give the same proof and the same
refusals: before any move the chain's own turn 0 (the joiner may hold a silent opener to
it), never the opener at turn 0 (the first move is theirs), never a final state alone.
"""

from __future__ import annotations

from chips_client import transactions as tx
from chips_client.defence import candidate_proofs
from chips_client.engine import KEPT, Held
from chips_client.engine import Channel as Engine
from chips_client.store import Store
from chips_tp.apps import APPS
from chips_tp.channel_state import decode_state
from chips_tp.ops import SignedState
from chips_tp.state import Channel
from chips_tp.support import Refused, supported
from client_core.errors import InvalidInput


def held_engine(stored: Store, found: Channel, me: str) -> Engine:
    """The channel as the store holds it (the chain's state when the store has none)."""
    decode = APPS[found.fixed.app].decode
    held = [Held(decode_state(s.state, decode), s) for _turn, s in stored.states(found.id, KEPT)]
    if not held:
        if found.state is None:
            raise InvalidInput("the channel has no state yet: the opponent must join first")
        held = [Held(decode_state(found.state, decode), tx.chain_turn_zero(found.state)[0])]
    return Engine(found.fixed, found.fixed.participants.index(me), held)


def challenge_proof(engine: Engine, channel: str) -> tuple[SignedState, ...]:
    """The proof a challenge of ``channel`` (its name as the player gave it) submits, or InvalidInput saying why
    there is none worth submitting."""
    proof = engine.proof()
    if not proof:
        raise InvalidInput(f"you hold no state of {channel!r} to challenge with but a final one: conclude it")
    if engine.latest.state.turn == 0 and engine.my_move:
        raise InvalidInput(f"the first move in {channel!r} is yours: play it; "
                           "a challenge now would only hold you to make it")  # fmt: skip
    return proof


def provable(engine: Engine, record: Channel) -> tuple[SignedState, ...]:
    """The newest proof held that the chain takes for a challenge on ``record`` now, judged by the chain's own rule of
    support: the engine's proof first, then each state held at or above the chain's turn (alone, then with the one
    before). :class:`Refused` with the chain's reason when none qualifies, so the loop says why once and does not
    submit a challenge the chain refuses again and again."""
    proofs = [engine.proof(), *candidate_proofs(engine.history, record.turn - 1)]
    reasons: list[str] = []
    for proof in proofs:
        if not proof:
            continue
        try:
            state = supported(record, proof, chain_turn_zero=True)
        except Refused as refused:
            reasons.append(str(refused))
            continue
        if state.turn < record.turn:
            reasons.append(f"the state of turn {state.turn} is stale: the chain has recorded turn {record.turn}")
            continue
        return proof
    raise Refused(reasons[0] if reasons else "no state is held that the chain can be held to")
