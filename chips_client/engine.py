"""One player's view of a channel off chain: the latest valid state, what a peer's message does to it, and proofs.

Pure: the match loop (:mod:`chips_client.match`) stores what this accepts before it
acknowledges anything. A received state is accepted only if it is the next turn,
signed by its mover (and any other signature verifies), and a move the app allows from
the latest state, or the final state after a settled one, with nothing changed but the
flag; otherwise it is refused with the reason, and the latest valid state stays.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from chips_client.moves import settled
from chips_client.transactions import chain_turn_zero
from chips_tp.apps import APPS
from chips_tp.channel import Fixed, channel_id, mover
from chips_tp.channel_state import State, decode_state
from chips_tp.hashes import signed_by, state_message
from chips_tp.ops import SignedState
from xo_core.canonical import Malformed

#: States held in memory: the latest, and the two before it (a proof needs two; a final state is never one).
KEPT: Final = 3


class Refusal(Exception):
    """A received state that is not a valid next state; the message says why."""


class Stale(Exception):
    """A received state this player already has (or an older one): nothing to do but tell the peer what is newer."""


class Held(NamedTuple):
    """A state this player holds: decoded, and as signed."""

    state: State
    signed: SignedState


class Channel:
    """The latest state of a channel and the one before it, for a participant ``me`` (0 opener, 1 joiner)."""

    def __init__(self, fixed: Fixed, me: int, held: list[Held]) -> None:
        if not held:
            raise ValueError("a channel starts from its turn-0 state")
        self.fixed = fixed
        self.id = channel_id(fixed)
        self.me = me
        self.history: list[Held] = held[-KEPT:]

    @property
    def latest(self) -> Held:
        """The newest signed state this player holds: the one to build on."""
        return self.history[-1]

    def decode(self, data: bytes) -> State:
        """A state's bytes decoded with this channel's game, so its app part is typed."""
        return decode_state(data, APPS[self.fixed.app].decode)

    @property
    def my_move(self) -> bool:
        """Whether the next state is this player's to sign (never once the latest is final)."""
        return not self.latest.state.final and mover(self.latest.state.turn + 1) == self.me

    @property
    def concluded(self) -> bool:
        """Whether the latest state is final and signed by both: ready for ``conclude``."""
        return self.latest.state.final and None not in self.latest.signed.signatures

    def check(self, signed: SignedState) -> State:
        """The state ``signed`` carries if it may follow the latest; :class:`Refusal` or :class:`Stale` otherwise."""
        try:
            state = self.decode(signed.state)
        except Malformed as error:
            raise Refusal(f"not a state of this channel's app: {error}") from None
        if state.channel != self.id:
            raise Refusal(f"a state of channel {state.channel.hex()[:8]}..., not of this one")
        held = sum(self.latest.state.balances)  # the deposits, or a tournament's match points (its deposits are 0)
        if sum(state.balances) != held:
            raise Refusal(f"its balances total {sum(state.balances)} chips, not the {held} held")
        self._check_signatures(signed, state)
        latest = self.latest.state
        if state.turn == latest.turn and signed.state == self.latest.signed.state:
            if all(
                a is not None or b is None
                for a, b in zip(self.latest.signed.signatures, signed.signatures, strict=True)
            ):
                raise Stale(f"turn {state.turn} again")
            return state
        if state.turn <= latest.turn:
            raise Stale(f"turn {state.turn}, older than turn {latest.turn}")
        if state.turn != latest.turn + 1:
            raise Refusal(f"turn {state.turn} skips ahead of turn {latest.turn}")
        moved = mover(state.turn)
        if signed.signatures[moved] is None:
            raise Refusal(f"turn {state.turn} is not signed by its mover, participant {moved}")
        if moved == self.me:
            raise Refusal(f"turn {state.turn} is this player's to sign, not the peer's")
        if state.final:
            if latest.final or not settled(latest):
                raise Refusal("a final state may follow only a settled position (no stake in play)")
            if state.app != latest.app or state.balances != latest.balances:
                raise Refusal("a final state must keep the position and balances of the state before it")
            return state
        if latest.final:
            raise Refusal("the channel's latest state is final: nothing follows it")
        problem = APPS[self.fixed.app].transition_problem(latest, state, self.fixed)
        if problem:
            raise Refusal(f"turn {state.turn} is not a valid move: {problem}")
        return state

    def _check_signatures(self, signed: SignedState, state: State) -> None:
        message = state_message(signed.state)
        for index, signature in enumerate(signed.signatures):
            if signature is not None and not signed_by(self.fixed.participants[index], signature, message):
                raise Refusal(f"participant {index}'s signature on turn {state.turn} does not verify")

    def signed_by_peer(self, signed: SignedState) -> bool:
        """Whether the other participant's signature on ``signed`` verifies: what makes a refused state evidence."""
        peer = 1 - self.me
        signature = signed.signatures[peer]
        return signature is not None and signed_by(
            self.fixed.participants[peer], signature, state_message(signed.state)
        )

    def accept(self, state: State, signed: SignedState) -> None:
        """Make ``state`` the latest (after :meth:`check`); a countersignature of the latest merges into it."""
        if state.turn == self.latest.state.turn:
            merged = tuple(
                a if a is not None else b for a, b in zip(self.latest.signed.signatures, signed.signatures, strict=True)
            )
            self.history[-1] = Held(state, SignedState(signed.state, (merged[0], merged[1])))
            return
        self.history = [*self.history[1 - KEPT :], Held(state, signed)]

    def adopt(self, state: State, signed: SignedState) -> None:
        """Take a state the chain holds that is newer than ours (the chain has checked it is supported)."""
        self.history = [Held(state, signed)]

    def rewind(self, base: Held) -> None:
        """Play on from ``base``, the chain's recorded state, though this player holds a state of its turn or after:
        what is held after it goes (a final proposal never countersigned), and so does everything held when this
        player's copy of that turn is not the chain's (an opponent who signed two versions of it)."""
        same = any(held.signed.state == base.signed.state for held in self.history)
        before = [held for held in self.history if held.state.turn < base.state.turn] if same else []
        self.history = [*before, base][-KEPT:]

    def proof(self) -> tuple[SignedState, ...]:
        """What supports the newest state the chain can be held to (not a final one: that is concluded): it alone if
        signed by both, or if it is the move after the chain's state (rule 3); otherwise it with the state before it,
        each signed by its mover. Before any move, the chain's own turn 0 as it recorded it, unsigned (rule 4: so an
        opener who never moves can be challenged). Empty only when nothing is held but a final state."""
        held = self.history[:-1] if self.latest.state.final else self.history
        if not held:
            return ()
        last = held[-1]
        if last.state.turn == 0:
            return chain_turn_zero(last.signed.state)
        if None not in last.signed.signatures or len(held) < 2:
            return (last.signed,)
        before = held[-2]
        if before.signed.signatures[mover(before.state.turn)] is None:
            return (last.signed,)
        return (before.signed, last.signed)
