"""How a challenge against this player is answered: with the newest state the chain will accept.

Pure: each candidate answer is judged by the chain's own rules (:mod:`chips_tp.rules`)
against the chain's record, newest first, so the choice never depends on where the
match loop stands (proposing the final state, countersigning, waiting for a move or for
the chain, resuming from the store) and is never one the chain would refuse:

1. ``conclude`` with the final state both signed;
2. ``checkpoint`` with the newest supported non-final state held above the challenged
   turn (so the state before a final proposal the opponent never countersigned);
3. ``respond`` with this player's move from the challenged state *as the chain recorded
   it*: an opponent who signed two versions of that turn cannot make the answer fail.

ForceMove's promise rests on it: the newest state both committed to always wins. So it
holds for a challenge of this player's own too (:func:`clearing`): once the opponent's
answer came off chain, the challenger clears its challenge with it rather than finalize.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from chips_client.engine import Channel as Engine
from chips_client.engine import Held
from chips_tp import rules
from chips_tp.channel import mover
from chips_tp.ops import Checkpoint, Conclude, SignedState
from chips_tp.state import Channel as Record
from chips_tp.support import Refused


class Concluding(NamedTuple):
    """Close the channel on the final state both signed."""

    final: SignedState


class Checkpointing(NamedTuple):
    """Put the newest supported state held on chain (it clears the challenge)."""

    proof: tuple[SignedState, ...]
    turn: int


class Responding(NamedTuple):
    """This player's move is due from ``challenged``, the chain's recorded state (its bytes, signed or not)."""

    challenged: Held


Answer = Concluding | Checkpointing | Responding
Clearing = Concluding | Checkpointing


def answer(engine: Engine, record: Record) -> Answer | None:
    """The answer to the challenge on ``record`` from the states ``engine`` holds, or None when there is none to give
    (the challenge is this player's own, already at the newest state with the challenger to move, or stale)."""
    if record.challenge is None or record.state is None:
        return None
    now = record.challenge.deadline - 1
    me = engine.fixed.participants[engine.me]
    if engine.concluded and _accepted(rules.conclude, record, Conclude(engine.id, engine.latest.signed), me, now):
        return Concluding(engine.latest.signed)
    for proof in candidate_proofs(engine.history, record.turn):
        if _accepted(rules.checkpoint, record, Checkpoint(engine.id, proof), me, now):
            return Checkpointing(proof, engine.decode(proof[-1].state).turn)
    if mover(record.turn + 1) == engine.me:
        return Responding(chain_state(engine, record))
    return None


def clearing(engine: Engine, record: Record) -> Clearing | None:
    """What clears this player's own challenge on ``record`` with a state newer than the challenged one, or None: the
    conclude or checkpoint :func:`answer` finds (the opponent's answer that came off chain, or this player's moves
    since). A challenger holding one never finalizes: that would pay an older state than both have committed to since,
    taking the stake from an opponent who answered in time, only not on chain."""
    reply = answer(engine, record)
    return None if isinstance(reply, Responding) else reply


def candidate_proofs(history: list[Held], above: int) -> list[tuple[SignedState, ...]]:
    """Proofs of the non-final states held above turn ``above``, newest first: each alone, then with the one before."""
    found: list[tuple[SignedState, ...]] = []
    for index in range(len(history) - 1, -1, -1):
        held = history[index]
        if held.state.final or held.state.turn <= above:
            continue
        found.append((held.signed,))
        if index > 0 and history[index - 1].state.turn == held.state.turn - 1:
            found.append((history[index - 1].signed, held.signed))
    return found


def chain_state(engine: Engine, record: Record) -> Held:
    """The chain's recorded state, with the signatures this player holds for those very bytes (none otherwise)."""
    assert record.state is not None
    for held in engine.history:
        if held.signed.state == record.state:
            return held
    return Held(engine.decode(record.state), SignedState(record.state, (None, None)))


def _accepted(rule: Callable[..., Record], record: Record, op: object, signer: str, now: int) -> bool:
    """Whether the chain's ``rule`` (one of :mod:`chips_tp.rules`) takes ``op`` on ``record`` now."""
    try:
        rule(record, op, signer, now)
    except Refused:
        return False
    return True
