"""Whether off-chain states sent on chain are what the channel's players agreed: decoded, signed, supported.

A state is *supported* (ForceMove's word) when the players have committed to it: one
signed by both; or two consecutive states, each signed by its mover, the second a
valid move from the first; or one signed by its mover that is a valid move from the
state the chain already holds (which both have, in effect, agreed to). A challenge may
also name the chain's own turn 0, byte for byte as recorded, with no signatures: the
chain wrote it when both deposits were in. Pure: the signature checks are computation,
not I/O.
"""

from sawtooth_sdk.processor.exceptions import InvalidTransaction

from chips_tp.apps import APPS
from chips_tp.channel import mover
from chips_tp.channel_state import State, decode_state
from chips_tp.hashes import signed_by, state_message
from chips_tp.ops import SignedState
from chips_tp.state import Channel
from xo_core.canonical import Malformed


class Refused(InvalidTransaction):
    """A chips operation the rules forbid; the message says why."""


def read_state(channel: Channel, data: bytes, what: str) -> State:
    """The off-chain state in ``data``, checked against ``channel``: its app's data, its id, its total."""
    try:
        state = decode_state(data, APPS[channel.fixed.app].decode)
    except Malformed as error:
        raise Refused(f"{what}: {error}") from None
    if state.channel != channel.id:
        raise Refused(f"{what} is a state of channel {state.channel.hex()}, not of {channel.id.hex()}")
    if sum(state.balances) != channel.held:
        raise Refused(f"{what}: its balances total {sum(state.balances)} chips but the channel holds {channel.held}")
    return state


def signers(channel: Channel, signed: SignedState, state: State, what: str) -> set[int]:
    """The participants who signed ``signed``; a signature that is there but does not verify is refused."""
    message = state_message(signed.state)
    found = set()
    for index, signature in enumerate(signed.signatures):
        if signature is None:
            continue
        if not signed_by(channel.fixed.participants[index], signature, message):
            raise Refused(
                f"{what}: participant {index}'s signature on turn {state.turn} does not verify "
                "(made by another key, for another state, or for another purpose than a state)"
            )
        found.add(index)
    return found


def transition_problem(channel: Channel, old: State, new: State) -> str | None:
    """Why ``new`` cannot follow ``old`` in ``channel``, or None: turns one apart, neither final, the app's rule."""
    if new.turn != old.turn + 1:
        return f"turn {new.turn} cannot follow turn {old.turn}"
    if old.final or new.final:
        return "a final state is concluded, not played on"
    return APPS[channel.fixed.app].transition_problem(old, new, channel.fixed)


def supported(channel: Channel, proof: tuple[SignedState, ...], chain_turn_zero: bool = False) -> State:
    """The last state of ``proof`` if the proof supports it; :class:`Refused` saying why not.

    With ``chain_turn_zero`` (a challenge), a lone unsigned state is supported when it is
    the chain's recorded turn 0 itself; a newer turn recorded since makes it stale.
    """
    if chain_turn_zero and len(proof) == 1 and proof[0].signatures == (None, None):
        return _chain_turn_zero(channel, proof[0].state)
    states = [read_state(channel, signed.state, f"state {i + 1} of the proof") for i, signed in enumerate(proof)]
    for state in states:
        if state.final:
            raise Refused(f"the state of turn {state.turn} is final: a final state signed by both is concluded")
    signed = [
        signers(channel, s, state, f"state {i + 1} of the proof")
        for i, (s, state) in enumerate(zip(proof, states, strict=True))
    ]
    last = states[-1]
    if len(states) == 1 and signed[0] == {0, 1}:
        return last
    for state, by in zip(states, signed, strict=True):
        if mover(state.turn) not in by:
            raise Refused(
                f"the state of turn {state.turn} is not signed by its mover, participant {mover(state.turn)}, "
                "and not by both"
            )
    if len(states) == 2:
        first = states[0]
    elif last.turn == channel.turn + 1 and channel.state is not None:
        first = read_state(channel, channel.state, "the chain's state")
    else:
        raise Refused(
            f"the state of turn {last.turn} is signed by its mover alone: it is supported only as the move after the "
            f"chain's state (turn {channel.turn}), or with the state before it signed by that state's mover"
        )
    problem = transition_problem(channel, first, last)
    if problem:
        raise Refused(f"the state of turn {last.turn} is not a valid move from turn {first.turn}: {problem}")
    return last


def _chain_turn_zero(channel: Channel, data: bytes) -> State:
    """The chain's turn 0 when ``data`` is exactly what it recorded; otherwise :class:`Refused`."""
    state = read_state(channel, data, "the unsigned state")
    if state.turn != 0:
        raise Refused(
            f"the state of turn {state.turn} is signed by nobody: only the chain's turn 0 is supported unsigned"
        )
    if channel.turn != 0:
        raise Refused(f"the state of turn 0 is stale: the chain has recorded turn {channel.turn}")
    if data != channel.state:
        raise Refused("the unsigned state of turn 0 is not the one the chain recorded when both deposits were in")
    return state
