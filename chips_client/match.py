"""A match in a channel, from its first state to conclude or finalize: one player's side, off chain and on.

The loop reads the peer's signed states from the broker, checks them
(:mod:`chips_client.engine`), writes each one accepted to the store before going on,
signs this player's moves (written before they are published), and proposes or
countersigns the final state once the match is over; then the proposer concludes on
chain (the other concludes only if the channel is still open a while later). It goes
to the chain on its own only to conclude and to defend: a challenge against this
player is answered with the newest state it holds (``checkpoint``), its next move
(``respond``) or the final state (``conclude``). With ``patience`` it also challenges
an opponent silent that long, and finalizes once the deadline passes.
Transport, chain and the choice of moves are given to it, so tests drive it with fakes.
"""

from __future__ import annotations

import queue
import secrets
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Final, Protocol

from chips_client import moves
from chips_client import transactions as tx
from chips_client.engine import KEPT, Channel, Held, Refusal, Stale
from chips_client.messages import decode_message, encode_message, topic
from chips_client.narration import Story, clock_time, deadline_text, duration, player, possessive
from chips_client.store import ChannelTerms, Secret, Store
from chips_tp.apps import APPS
from chips_tp.channel import RPS, channel_id, mover
from chips_tp.channel_state import State, decode_state
from chips_tp.family import channel_address
from chips_tp.hashes import sign, state_message
from chips_tp.ops import SignedState
from chips_tp.state import CLOSED
from chips_tp.state import Channel as Record
from client_core.errors import Rejected
from client_core.keys import NO_NAMES, KeyNames
from xo_core.canonical import Malformed
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer

#: How often the chain is read for challenges and closes while playing (seconds).
POLL_SECONDS: Final = 0.5
#: How long the countersigner of the final state leaves the proposer to conclude before doing it itself.
CONCLUDE_GRACE_SECONDS: Final = 10.0
#: Resending the latest state to a peer that is behind: at most this often.
RESEND_SECONDS: Final = 1.0
#: Waiting this long for the peer, the latest state is published again (a dropped message is not lost for good).
IDLE_RESEND_SECONDS: Final = 3.0
#: Refusals of messages the opponent did not sign are said at most this often (a flood is one line, then a count).
JUNK_NOTICE_SECONDS: Final = 10.0
#: A finalize is tried this long after the deadline by the local clock (the chain's clock is its blocks').
FINALIZE_MARGIN_SECONDS: Final = 1.0
PUBLISH_TIMEOUT: Final = 10.0


Receiver = Callable[[str, bytes], "Future[None] | None"]
"""What the transport calls with each message: it acknowledges the broker once the returned future is done."""


class Session(Protocol):
    """The transport: :class:`client_core.broker.BrokerSession` or a test's fake."""

    def connect(self, timeout: float) -> None:
        """Connect to the broker within ``timeout`` seconds, or raise."""

    def subscribe(self, topic: str, timeout: float) -> None:
        """Receive what is published on ``topic`` from now on (and what waited while away)."""

    def publish(self, topic: str, payload: bytes, timeout: float) -> None:
        """Send ``payload`` on ``topic``, acknowledged within ``timeout`` seconds, or raise."""

    def close(self) -> None:
        """Disconnect; the broker keeps the session for the next connect."""


class Chain(Protocol):
    """What the match needs of the chain: a channel's record, and a transaction committed (or an error raised)."""

    def channel(self, address: str) -> Record | None:
        """The channel's record at ``address``, or None when it is not on the chain."""

    def submit(self, transaction: Transaction, what: str) -> None:
        """Submit ``transaction`` and return once it committed; ``what`` names it in an error."""


class Chooser(Protocol):
    """Who picks this player's moves: a person at ``chips play`` or a bot."""

    def xo_space(self, board: str, mark: str) -> int:
        """The space (1-9) this player takes for ``mark`` on ``board``."""

    def rps_throw(self) -> str:
        """This player's throw: rock, paper or scissors."""


class NotPlayable(Exception):
    """The channel cannot be played now (not found, still funding, not this key's); the message says why."""


class Match:
    """One player's side of one channel."""

    def __init__(
        self, *, signer: Signer, terms: ChannelTerms, store: Store, chain: Chain,
        connect: Callable[[Receiver], Session], chooser: Chooser, say: Callable[[str], None],
        patience: float | None = None, clock: Callable[[], float] = time.time, names: KeyNames = NO_NAMES,
    ) -> None:  # fmt: skip
        self.signer, self.terms, self.store, self.chain = signer, terms, store, chain
        self.fixed = terms.fixed
        self.id = channel_id(self.fixed)
        self.address = channel_address(self.id)
        self.me = self.fixed.participants.index(signer.public_key)
        self.peer = self.fixed.participants[1 - self.me]
        self.chooser, self.say, self.patience, self.clock = chooser, say, patience, clock
        self.inbox: queue.Queue[tuple[bytes, Future[None]]] = queue.Queue(maxsize=1000)
        self._connect = connect
        self.session: Session | None = None
        self.channel: Channel | None = None
        self.refused = 0
        self._last_resend = 0.0
        self._last_send = 0.0
        self._last_junk_notice = -JUNK_NOTICE_SECONDS
        self._progress = time.monotonic()
        self._concluded_at: float | None = None
        self._defended: tuple[int, int] | None = None
        self._games = 0
        self._finalize_after = 0.0
        self.story = Story(self.fixed, terms.rounds, signer.public_key, names)
        self.opponent = player(self.peer, None, names)
        """The opponent as the player knows them (the key's name, or a short key), for the lines said."""

    def _on_message(self, _topic: str, payload: bytes) -> Future[None] | None:
        """On the transport's thread: hand the bytes over, to be acknowledged to the broker only once handled.

        A state is accepted by writing it to the store, so the broker hears it was received only after that
        write: a player killed in between gets the message again. A flood beyond the queue's bound is
        acknowledged and dropped (the opponent resends their latest state until it is answered).
        """
        handled: Future[None] = Future()
        try:
            self.inbox.put_nowait((payload, handled))
        except queue.Full:
            return None
        return handled

    # -- start ------------------------------------------------------------------------------------------------
    def start(self) -> Record:
        """Load the channel from the chain before playing; :class:`NotPlayable` saying why it cannot be played now."""
        record = self.chain.channel(self.address)
        if record is None:
            raise NotPlayable(f"channel {self.terms.name!r} is not on the chain")
        if record.status == "funding":
            raise NotPlayable(f"channel {self.terms.name!r} is still waiting for a deposit: 'chips join' it first")
        self._load(record)
        if record.status == CLOSED:
            return record
        self.session = self._connect(self._on_message)
        self.session.connect(PUBLISH_TIMEOUT)
        self.session.subscribe(topic(self.id, self.signer.public_key), PUBLISH_TIMEOUT)
        self._send_latest()
        return record

    def _load(self, record: Record) -> None:
        """The channel from the store (the chain's turn-0 state the first time)."""
        self.store.remember_channel(self.id, self.terms)
        held = [Held(self._decode(signed.state), signed) for _turn, signed in self.store.states(self.id, KEPT)]
        if not held:
            assert record.state is not None
            first = SignedState(record.state, (None, None))
            self.store.save_state(self.id, record.turn, first)
            held = [Held(self._decode(record.state), first)]
        self.channel = Channel(self.fixed, self.me, held)
        self._games = 0
        for data in self.store.all_states(self.id):
            state = self._decode(data)
            self.story.follow([state])
            if self.fixed.app != RPS:
                self._games = moves.rounds_done(state, self._games)

    def defend_offline(self, record: Record) -> None:
        """Answer a challenge against this player from the store alone, with no broker (``chips watch --defend``)."""
        self._load(record)
        self._watch_chain()

    def _decode(self, data: bytes) -> State:
        return decode_state(data, APPS[self.fixed.app].decode)

    # -- the loop ---------------------------------------------------------------------------------------------
    def run(self, time_limit: float | None = None) -> str:
        """Play until the channel closes: "concluded" or "finalized" (or "closed" if it was already)."""
        record = self.start()
        if record.status == CLOSED:
            return "closed"
        ends = None if time_limit is None else time.monotonic() + time_limit
        next_poll = 0.0
        try:
            while ends is None or time.monotonic() < ends:
                self._drain(POLL_SECONDS / 5)
                outcome = self._act()
                if outcome:
                    return outcome
                if time.monotonic() >= next_poll:
                    next_poll = time.monotonic() + POLL_SECONDS
                    outcome = self._watch_chain()
                    if outcome:
                        return outcome
            raise TimeoutError(f"the match in channel {self.terms.name!r} did not end within {time_limit:g} s")
        finally:
            if self.session is not None:
                self.session.close()

    def _drain(self, wait: float) -> None:
        try:
            message = self.inbox.get(timeout=wait)
        except queue.Empty:
            return
        while True:
            payload, handled = message
            self.receive(payload)  # if it raises (the store failed), the broker is never told: it redelivers
            handled.set_result(None)
            try:
                message = self.inbox.get_nowait()
            except queue.Empty:
                return

    def receive(self, payload: bytes) -> None:
        """A message from the broker: accepted (stored first), ignored as stale, or refused; a refused state the
        opponent signed is kept as evidence, junk nobody signed is only counted (anyone on a broker can send it)."""
        channel = self._channel
        try:
            signed = decode_message(payload)
            state = channel.check(signed)
        except (Malformed, Refusal) as error:
            self.refused += 1
            signed_by_peer = not isinstance(error, Malformed) and channel.signed_by_peer(signed)
            if signed_by_peer:
                self.store.keep_evidence(self.id, payload, str(error))
            if signed_by_peer or time.monotonic() - self._last_junk_notice >= JUNK_NOTICE_SECONDS:
                self._last_junk_notice = time.monotonic()
                who = self.opponent if signed_by_peer else f"someone (not signed by {self.opponent})"
                self.say(f"refused a state from {who}: {error}; keeping turn {channel.latest.state.turn} "
                         f"({self.refused} refused so far)")  # fmt: skip
            return
        except Stale:
            if state_turn(channel, payload) < channel.latest.state.turn:
                self._resend()
            return
        countersigned = state.turn == channel.latest.state.turn
        channel.accept(state, signed)
        self.store.save_state(self.id, state.turn, channel.latest.signed)
        self._progress = time.monotonic()
        if countersigned:
            self.say(f"{self.opponent} signed the final state too")
            return
        if self.fixed.app != RPS:
            self._games = moves.rounds_done(state, self._games)
        self.say(self.story.tell(state))

    def _act(self) -> str | None:
        channel = self._channel
        latest = channel.latest
        if channel.concluded:
            return self._conclude_when_due()
        if latest.state.final and mover(latest.state.turn) != self.me:
            self._countersign()
        elif channel.my_move:
            self._move()
        elif self.patience is not None and channel.proof() and time.monotonic() - self._progress > self.patience:
            self._challenge()
        elif time.monotonic() - max(self._progress, self._last_send) > IDLE_RESEND_SECONDS:
            self._send_latest()  # the broker may have dropped a message either way: this heals it
        return None

    def _move(self) -> State:
        channel = self._channel
        latest = channel.latest.state
        done = latest.app.round if self.fixed.app == RPS else self._games  # type: ignore[attr-defined]
        if moves.match_over(latest, self.fixed, done, self.terms.rounds):
            state = moves.final_of(latest)
        elif self.fixed.app == RPS:
            state = self._rps_move(latest)
        else:
            data = latest.app
            mark = moves.xo_mark(data)  # type: ignore[arg-type]
            space = None if mark is None else self.chooser.xo_space(moves.xo_board(data), mark)  # type: ignore[arg-type]
            state = moves.xo_next(latest, self.fixed, space)
        signed = tx.sign_move(self.fixed, state, self.signer)
        channel.accept(state, signed)
        self.store.save_state(self.id, state.turn, signed)
        self._progress = time.monotonic()
        if self.fixed.app != RPS:
            self._games = moves.rounds_done(state, self._games)
        self._publish(signed)
        self.say(self.story.tell(state))
        return state

    def _rps_move(self, latest: State) -> State:
        data = latest.app
        position = data.position  # type: ignore[attr-defined]
        if position == "Start":
            secret = Secret(self.chooser.rps_throw(), secrets.token_bytes(32))
            self.store.save_secret(self.id, data.round + 1, secret)  # type: ignore[attr-defined]
            return moves.rps_next(latest, self.fixed, secret.throw, secret.salt)
        if position == "RoundProposed":
            return moves.rps_next(latest, self.fixed, self.chooser.rps_throw(), None)
        if position == "RoundAccepted":
            kept = self.store.secret(self.id, data.round)  # type: ignore[attr-defined]
            if kept is None:
                raise NotPlayable(f"the throw of round {data.round} is not in the store: it cannot be revealed")  # type: ignore[attr-defined]
            return moves.rps_next(latest, self.fixed, kept.throw, kept.salt)
        return moves.rps_next(latest, self.fixed, None, None)

    def _countersign(self) -> None:
        channel = self._channel
        latest = channel.latest
        signature = sign(self.signer, state_message(latest.signed.state))
        both = list(latest.signed.signatures)
        both[self.me] = signature
        signed = SignedState(latest.signed.state, (both[0], both[1]))
        channel.accept(latest.state, signed)
        self.store.save_state(self.id, latest.state.turn, signed)
        self._publish(signed)
        self.say(f"you agreed to close the channel on {self.story.balances(latest.state.balances)}")

    def _conclude_when_due(self) -> str | None:
        final = self._channel.latest
        if self._concluded_at is None:
            self._concluded_at = self.clock()
        proposer = mover(final.state.turn) == self.me
        if proposer or self.clock() - self._concluded_at > CONCLUDE_GRACE_SECONDS:
            record = self.chain.channel(self.address)
            if record is not None and record.status == CLOSED:
                return "concluded"
            try:
                self.chain.submit(tx.conclude(self.signer, self.fixed, final.signed), "the conclude")
            except Rejected:  # the opponent's conclude landed first: the chain says whether it is closed
                record = self.chain.channel(self.address)
                if record is None or record.status != CLOSED:
                    raise
            self.say(f"concluded the channel on chain, paying {self.story.balances(final.state.balances)}")
            return "concluded"
        return None

    # -- the chain --------------------------------------------------------------------------------------------
    def _watch_chain(self) -> str | None:
        record = self.chain.channel(self.address)
        if record is None:
            return None
        if record.status == CLOSED:
            concluded = self._channel.concluded
            return "concluded" if concluded else "finalized"
        channel = self._channel
        if record.turn > channel.latest.state.turn and record.state is not None:
            state = self._decode(record.state)
            channel.adopt(state, SignedState(record.state, (None, None)))
            self.store.save_state(self.id, state.turn, channel.latest.signed)
            if self.fixed.app != RPS:
                self._games = moves.rounds_done(state, self._games)
            self._progress = time.monotonic()
            self.say(f"the chain holds a newer state than your store, playing on from it: {self.story.tell(state)}")
        challenge = record.challenge
        if challenge is None:
            return None
        if challenge.challenger == self.signer.public_key:
            if self.clock() >= max(challenge.deadline + FINALIZE_MARGIN_SECONDS, self._finalize_after):
                try:
                    self.chain.submit(tx.finalize(self.signer, self.fixed), "the finalize")
                except Rejected as refused:  # the chain's clock (its blocks') is behind ours: try again soon
                    self._finalize_after = self.clock() + FINALIZE_MARGIN_SECONDS
                    self.say(f"not final yet: {refused.message}")
                    return None
                held = "" if record.state is None else self.story.balances(self._decode(record.state).balances)
                by = clock_time(challenge.deadline, self.clock())
                self.say(f"{self.opponent} did not answer your challenge by {by}: finalized, paying the challenged "
                         f"state ({held})")  # fmt: skip
                return "finalized"
            return None
        if self._defended == (challenge.deadline, record.turn):
            return None
        self._defended = (challenge.deadline, record.turn)
        try:
            self._defend(record)
        except Rejected as refused:  # e.g. the peer moved on chain meanwhile: look again at the next poll
            self._defended = None
            self.say(f"could not answer the challenge yet: {refused.message}")
        return None

    def _defend(self, record: Record) -> None:
        channel = self._channel
        latest = channel.latest
        assert record.challenge is not None
        self.say(f"{self.opponent} challenged you at turn {record.turn}, to answer before "
                 f"{deadline_text(record.challenge.deadline, self.clock())}: answering")  # fmt: skip
        if channel.concluded:
            self.chain.submit(tx.conclude(self.signer, self.fixed, latest.signed), "the conclude")
        elif latest.state.turn > record.turn and not latest.state.final:
            self.chain.submit(tx.checkpoint(self.signer, self.fixed, channel.proof()), "the checkpoint")
        elif latest.state.turn == record.turn and channel.my_move:
            state = self._move()
            self.chain.submit(tx.respond(self.signer, self.fixed, channel.latest.signed), "the response")
            self.say(f"answered {possessive(self.opponent)} challenge on chain with your move of turn {state.turn}")

    def challenge(self) -> None:
        """Challenge the opponent with the newest state held (``chips challenge``, or ``--patience``); before any
        move, the chain's own turn 0, which the opener must answer with the first move."""
        self._challenge()

    def _challenge(self) -> None:
        proof = self._channel.proof()
        if not proof:
            raise NotPlayable("no state is held that the chain can be held to: the match is concluded")
        try:
            self.chain.submit(tx.challenge(self.signer, self.fixed, proof), "the challenge")
        except Rejected as refused:  # e.g. the opponent challenged first: defending comes first, then patience again
            self._progress = time.monotonic()
            self.say(f"could not challenge: {refused.message}")
            return
        self._progress = float("inf")
        self.say(f"you challenged {self.opponent} at turn {self._decode(proof[-1].state).turn}: they have "
                 f"{duration(self.fixed.duration)} to answer, or the chain pays that state out")  # fmt: skip

    # -- the broker -------------------------------------------------------------------------------------------
    def _publish(self, signed: SignedState) -> None:
        if self.session is None:  # a watchtower: the peer reads the move from the chain
            return
        self.session.publish(topic(self.id, self.peer), encode_message(signed), PUBLISH_TIMEOUT)

    def _send_latest(self) -> None:
        """Publish the latest state: to the peer a hello if it is as far, what it missed if it is behind, and a
        sign that this player is behind if it is ahead (it answers with its newer state)."""
        self._publish(self._channel.latest.signed)
        self._last_send = time.monotonic()

    def _resend(self) -> None:
        if self.clock() - self._last_resend >= RESEND_SECONDS:
            self._last_resend = self.clock()
            self._send_latest()

    @property
    def _channel(self) -> Channel:
        assert self.channel is not None
        return self.channel


def state_turn(channel: Channel, payload: bytes) -> int:
    """The turn of the state in a message :meth:`Channel.check` found stale (so it decodes)."""
    return channel.decode(decode_message(payload).state).turn
