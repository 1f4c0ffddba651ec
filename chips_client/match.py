"""A match in a channel, from its first state to conclude or finalize: one player's side, off chain and on.

The loop never blocks on the player: each pass reads the peer's signed states from the
broker, checks them (:mod:`chips_client.engine`) and writes each one accepted to the
store before going on; asks the player for a move and polls for the answer
(:mod:`chips_client.asking`), signs it (written before it is published), proposes or
countersigns the final state once the match is over, and reads the chain every half
second (every tenth of one for a second after countersigning, so the countersigner hears
the close as soon as the proposer concludes). The proposer concludes on chain (the other
only if the channel is still open a while later). It goes to the chain on its own only to conclude and to defend: a
challenge against this player is answered, whatever the loop is doing, with the newest
state the chain will accept (:mod:`chips_client.defence`): ``conclude``, ``checkpoint``,
or the player's next move as ``respond``, which the computer plays for them (``stand_in``)
if it has not come by half the time left. With ``patience`` it also challenges an
opponent silent that long, and finalizes once the deadline passes; but once a state newer than the
challenged one is held (the opponent's answer came off chain, or this player moved on since), it clears
its own challenge with it (:func:`chips_client.defence.clearing`), leaving the opponent a few seconds to
put their answer on chain themselves, well before the deadline, and never finalizes it.

A REST API that goes away is said once and retried with a capped backoff while the play
off chain goes on; the broker reconnects on its own (:meth:`Match.reconnected` has the
latest state published again). Transport, chain and the choice of moves are given to
it, so tests drive it with fakes.
"""

from __future__ import annotations

import contextlib
import queue
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Final, NamedTuple, Protocol

from chips_client import challenges, defence, moves
from chips_client import transactions as tx
from chips_client.asking import Answer, Chooser, Picker, Question, pick
from chips_client.engine import KEPT, Channel, Held, Refusal, Stale
from chips_client.messages import decode_message, encode_message, topic
from chips_client.narration import Story, clock_time, clock_times, deadline_text, duration, player, possessive
from chips_client.store import ChannelTerms, Secret, Store
from chips_tp.apps import APPS
from chips_tp.channel import RPS, channel_id, mover
from chips_tp.channel_state import State, decode_state
from chips_tp.family import channel_address
from chips_tp.hashes import sign, state_message
from chips_tp.ops import SignedState
from chips_tp.state import CLOSED
from chips_tp.state import Channel as Record
from chips_tp.support import Refused
from client_core.broker import BrokerError
from client_core.errors import Rejected, TimedOut, Unavailable
from client_core.keys import NO_NAMES, KeyNames
from xo_core.canonical import Malformed
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer
from xo_core.text import quoted

#: How often the chain is read for challenges and closes while playing (seconds).
POLL_SECONDS: Final = 0.5
#: How long one pass of the loop waits for a message before doing the rest of its work (seconds).
PASS_SECONDS: Final = POLL_SECONDS / 5
#: After countersigning the final state the chain is read every pass for this long: the proposer's conclude is due.
CLOSING_SECONDS: Final = 1.0
#: How long the countersigner of the final state leaves the proposer to conclude before doing it itself.
CONCLUDE_GRACE_SECONDS: Final = 10.0
#: A challenger holding the opponent's answer (come off chain) leaves them this long, at most half the time left, to put
#: it on chain themselves (their match does as it sends it) before clearing the challenge with it: one transaction, not
#: two racing.
CLEAR_GRACE_SECONDS: Final = 5.0
#: Resending the latest state to a peer that is behind: at most this often, unless the peer is further on than the last
#: time it was answered (it came back from its store, say), which is answered at once.
RESEND_SECONDS: Final = 1.0
#: Waiting this long for the peer, the latest state is published again (a dropped message is not lost for good)...
IDLE_RESEND_SECONDS: Final = 3.0
#: ...and each further time while the channel stays at that turn after twice as long, up to this: a peer that is only
#: slow (a house or a broker under a crowd) is not given more to do, as a resend every few seconds from each of a
#: thousand matches would.
IDLE_RESEND_MAX_SECONDS: Final = 30.0
#: Refusals of messages the opponent did not sign are said at most this often (a flood is one line, then a count).
JUNK_NOTICE_SECONDS: Final = 10.0
#: A finalize is tried this long after the deadline by the local clock (the chain's clock is its blocks').
FINALIZE_MARGIN_SECONDS: Final = 1.0
PUBLISH_TIMEOUT: Final = 10.0
#: While the broker is away, a publish waits this long (paho queues it for the reconnection) so the loop goes on.
OFFLINE_PUBLISH_TIMEOUT: Final = 0.05
#: A pass later than this beyond its wait was held up by this process, not by the opponent: patience does not count it.
STALL_SECONDS: Final = 1.0
#: A REST API that cannot be reached is tried again after a backoff doubling from the first to the second (seconds).
CHAIN_RETRY_SECONDS: Final = (0.5, 5.0)


Receiver = Callable[[str, bytes], "Future[None] | None"]
"""What the transport calls with each message: it acknowledges the broker once the returned future is done."""
Connector = Callable[[Receiver, Callable[[], None]], "Session"]
"""Makes the transport: given the receiver, and what to call (on the transport's thread) after a reconnection."""


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


class NotPlayable(Exception):
    """The channel cannot be played now (not found, still funding, not this key's); the message says why."""


class Due(NamedTuple):
    """A challenge that waits on this player's move after ``turn``: answered by ``deadline`` (the chain's clock)."""

    turn: int
    deadline: int
    computer_at: float | None


class Own(NamedTuple):
    """This player's challenge at ``turn`` until ``deadline``, as the chain was last read: cleared with the newer state
    held from ``clear_at`` (by this clock; None while none is held), ``sent`` once (again after a refusal), unless the
    chain refused it past the deadline (``expired``: only the finalize is left)."""

    turn: int
    deadline: int
    clear_at: float | None = None
    sent: bool = False
    expired: bool = False


class Match:
    """One player's side of one channel."""

    def __init__(
        self, *, signer: Signer, terms: ChannelTerms, store: Store, chain: Chain,
        connect: Connector | None, chooser: Chooser, say: Callable[[str], None],
        patience: float | None = None, clock: Callable[[], float] = time.time, stand_in: Picker | None = None,
        names: KeyNames = NO_NAMES, pass_seconds: float = PASS_SECONDS,
    ) -> None:  # fmt: skip
        self.signer, self.terms, self.store, self.chain = signer, terms, store, chain
        self.fixed = terms.fixed
        self.id = channel_id(self.fixed)
        self.address = channel_address(self.id)
        self.me = self.fixed.participants.index(signer.public_key)
        self.peer = self.fixed.participants[1 - self.me]
        self.chooser, self.say, self.patience, self.clock = chooser, say, patience, clock
        self.stand_in = stand_in
        self.pass_seconds = pass_seconds
        self.inbox: queue.Queue[tuple[bytes, Future[None]] | None] = queue.Queue(maxsize=1000)
        self._connect = connect
        self.session: Session | None = None
        self.channel: Channel | None = None
        self.refused = 0
        self._last_resend = 0.0
        self._resent_for = -1
        self._last_send = 0.0
        self._idle_resends = (-1, 0)
        """The turn the channel was at when it was last resent while idle, and how many times it was resent then."""
        self._last_junk_notice = -JUNK_NOTICE_SECONDS
        self._progress = time.monotonic()
        self._last_pass = time.monotonic()
        self._concluded_at: float | None = None
        self._defended: tuple[int, int] | None = None
        self._games = 0
        self._finalize_after = 0.0
        self._asked: tuple[Question, bytes] | None = None
        self._due: Due | None = None
        self._cannot_move: bytes | None = None
        self._opponents_challenge: tuple[int, int] | None = None
        self._unprovable: tuple[SignedState, int] | None = None
        self._challenge_expired = False
        self._own: Own | None = None
        """This player's challenge standing on chain (as last read): a newer state held has the chain read at once."""
        self._unsynced = 0
        """The newest store transaction holding a write of this match not yet on disk (0: none)."""
        self._reconnected = threading.Event()
        self._next_poll = 0.0
        self._countersigned_at = float("-inf")
        self._chain_retry = 0.0
        self._chain_at = 0.0
        self._chain_lost: str | None = None
        self._broker_lost = False
        self.story = Story(self.fixed, terms.rounds, signer.public_key, names)
        self.opponent = player(self.peer, None, names)
        """The opponent as the player knows them (the key's name, or a short key), for the lines said."""

    def _on_message(self, where: str, payload: bytes) -> Future[None] | None:
        """On the transport's thread: hand the bytes over, to be acknowledged to the broker only once handled.

        A state is accepted by writing it to the store, so the broker hears it was received only after that
        write: a player killed in between gets the message again. A flood beyond the queue's bound is
        acknowledged and dropped (the opponent resends their latest state until it is answered), and so is
        what arrives on another topic than this player's (a broker may deliver retained messages of other
        topics to a new subscriber: amqtt 0.12 alone does).
        """
        if where != topic(self.id, self.signer.public_key):
            return None
        handled: Future[None] = Future()
        try:
            self.inbox.put_nowait((payload, handled))
        except queue.Full:
            return None
        return handled

    def wake(self) -> None:
        """From any thread: the chain changed this channel (a block the caller follows), so the loop reads it now
        rather than at its next poll."""
        self._next_poll = 0.0
        with contextlib.suppress(queue.Full):  # a full inbox wakes the loop anyway
            self.inbox.put_nowait(None)

    def reconnected(self) -> None:
        """On the transport's thread, after the broker connection came back: the loop publishes the latest state
        again, since what was published while away (or a session the broker forgot) may be lost."""
        self._reconnected.set()

    # -- start ------------------------------------------------------------------------------------------------
    def start(self) -> Record:
        """Load the channel from the chain before playing; :class:`NotPlayable` saying why it cannot be played now."""
        record = self.chain.channel(self.address)
        if record is None:
            raise NotPlayable(f"channel {self.terms.name!r} is not on the chain")
        if record.status == "funding":
            raise NotPlayable(f"channel {self.terms.name!r} is still waiting for a deposit: 'chips join' it first")
        resumed = self._load(record)
        if record.status == CLOSED:
            return record
        if resumed:
            latest = self._channel.latest.state
            self.say(f"resuming channel {quoted(self.terms.name, None)} at turn {latest.turn}, from your store: "
                     f"{self.story.position(latest)}")  # fmt: skip
        if self._connect is not None:
            self.session = self._connect(self._on_message, self.reconnected)
            self.session.connect(PUBLISH_TIMEOUT)
            self.session.subscribe(topic(self.id, self.signer.public_key), PUBLISH_TIMEOUT)
            self._send_latest()
        return record

    def _load(self, record: Record) -> bool:
        """The channel from the store (the chain's turn-0 state the first time); whether the store held it."""
        self.store.remember_channel(self.id, self.terms)
        held = [Held(self._decode(signed.state), signed) for _turn, signed in self.store.states(self.id, KEPT)]
        resumed = bool(held) and held[-1].state.turn > 0
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
        return resumed

    def defend_offline(self, record: Record) -> None:
        """Answer a challenge against this player from the store alone, with no broker (``chips watch --defend``):
        the same answer the loop gives, the move (if one is due) the chooser's. A challenge of this player's own is
        cleared when the store holds a newer state (the opponent's answer, taken in by a match since stopped)."""
        self._load(record)
        self._follow(record)
        if record.status == CLOSED or record.challenge is None:
            return
        if record.challenge.challenger == self.signer.public_key:
            self._own_challenge(record, finalize=False)  # never a finalize: that is the player's call (chips finalize)
            return
        try:
            self._defend(record)
            if self._due is not None:
                self._my_move()
        except (Unavailable, TimedOut):
            self._defended = None  # looked at again on the next call
            raise

    def _decode(self, data: bytes) -> State:
        return decode_state(data, APPS[self.fixed.app].decode)

    # -- the loop ---------------------------------------------------------------------------------------------
    def run(self, time_limit: float | None = None) -> str:
        """Play until the channel closes: "concluded" or "finalized" (or "closed" if it was already)."""
        record = self.start()
        if record.status == CLOSED:
            return "closed"
        ends = None if time_limit is None else time.monotonic() + time_limit
        wait = 0.0  # the first pass acts at once: a first move is not held up for a message
        try:
            while ends is None or time.monotonic() < ends:
                outcome = self.step(wait)
                if outcome:
                    return outcome
                wait = self.pass_seconds
            raise TimeoutError(f"the match in channel {self.terms.name!r} did not end within {time_limit:g} s")
        finally:
            if self.session is not None:
                self.session.close()

    def step(self, wait: float = PASS_SECONDS) -> str | None:
        """One pass: the messages come in (waiting up to ``wait`` for the first), this player acts, and the chain is
        read when due; the outcome once the channel closed. A REST API out of reach delays only the chain's part.

        Patience counts only time this loop could hear the opponent: a pass that comes far later than it was due (the
        process was too busy to run it) moves the opponent's last sign of life on by the delay, and so does the time
        the broker is away or more than STALL_SECONDS behind (nothing the opponent sends can arrive, or not in time:
        a crowd's messages queue in it)."""
        handled = self._drain(wait)
        now = time.monotonic()
        late = now - self._last_pass - wait - STALL_SECONDS
        if not getattr(self.session, "connected", True) or getattr(self.session, "lag", 0.0) > STALL_SECONDS:
            late = now - self._last_pass
        if late > 0:
            self._progress = min(self._progress + late, now)
        self._last_pass = now
        if self._reconnected.is_set():
            self._reconnected.clear()
            self._send_latest()
        try:
            try:
                outcome = self._act()
            finally:  # what came in is on disk (with the answer, if one was made: one commit) before it is acknowledged
                self._sync()
                for done in handled:
                    done.set_result(None)
            if outcome is None and time.monotonic() >= self._next_poll and self._chain_due():
                closing = time.monotonic() - self._countersigned_at < CLOSING_SECONDS
                self._next_poll = time.monotonic() + (PASS_SECONDS if closing else POLL_SECONDS)
                outcome = self._watch_chain()
        except BrokerError:
            raise
        except (Unavailable, TimedOut) as error:
            self._lose_chain(error)
            return None
        if outcome:
            self._withdraw(f"the channel is {outcome}")
        return outcome

    def _drain(self, wait: float) -> list[Future[None]]:
        """Take in the messages waiting (the first up to ``wait``), written to the store but not yet on disk: what
        tells the broker each was handled, to be done once :meth:`_sync` made them durable."""
        handled: list[Future[None]] = []
        try:
            message = self.inbox.get(timeout=wait) if wait > 0 else self.inbox.get_nowait()
        except queue.Empty:
            return handled
        while True:
            if message is not None:  # None: only a wake-up
                payload, done = message
                self.receive(payload, durable=False)  # if it raises (the store failed), the broker redelivers
                handled.append(done)
            try:
                message = self.inbox.get_nowait()
            except queue.Empty:
                return handled

    def _sync(self) -> None:
        """Make what this match wrote without waiting for the disk durable (one commit for all of it)."""
        unsynced, self._unsynced = self._unsynced, 0
        self.store.sync(unsynced)

    def receive(self, payload: bytes, durable: bool = True) -> None:
        """A message from the broker: accepted (stored first), ignored as stale, or refused; a refused state the
        opponent signed is kept as evidence, junk nobody signed is only counted (anyone on a broker can send it).
        Not ``durable``, the state is on disk only at the next :meth:`_sync`, which comes before it is acknowledged:
        a reply then waits for one commit, of the state received and the answer together."""
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
            behind = state_turn(channel, payload)
            if behind < channel.latest.state.turn:
                self._resend(behind)
            return
        countersigned = state.turn == channel.latest.state.turn
        channel.accept(state, signed)
        self._unsynced = max(self._unsynced, self.store.save_state(self.id, state.turn, channel.latest.signed, durable))
        self._progress = time.monotonic()
        if countersigned:
            self.say(f"{self.opponent} signed the final state too")
            return
        if self.fixed.app != RPS:
            self._games = moves.rounds_done(state, self._games)
        self._clear_soon()
        self.say(self.story.tell(state))

    def _clear_soon(self) -> None:
        """A newer state is held: while this player's own challenge stands, the chain is read in this very pass, so
        that the time to clear the challenge with it is counted from now, not from the next poll."""
        if self._own is not None:
            self._next_poll = 0.0

    def _act(self) -> str | None:
        channel = self._channel
        latest = channel.latest
        self._drop_stale_question()
        if channel.concluded:
            return self._conclude_when_due()
        if latest.state.final and mover(latest.state.turn) != self.me:
            self._countersign()
        elif channel.my_move:
            self._my_move()
        elif (self.patience is not None and channel.proof() and time.monotonic() - self._progress > self.patience
              and self._chain_due()):  # fmt: skip
            self._challenge()
        elif time.monotonic() - max(self._progress, self._last_send) > self._idle_wait(latest.state.turn):
            self._send_latest()  # the broker may have dropped a message either way: this heals it
            self._idle_resends = (latest.state.turn, self._idle_resent(latest.state.turn) + 1)
        return None

    # -- this player's moves ----------------------------------------------------------------------------------
    def _my_move(self) -> None:
        """Play this player's move if it is known: built at once when there is nothing to choose, otherwise asked
        for (once) and taken when the chooser has it, or the computer's when a challenge's deadline nears."""
        latest = self._channel.latest
        if self._cannot_move == latest.signed.state:
            return
        question = self._question(latest.state)
        reply: Answer | None = None
        chosen = question is not None  # by the player, who may choose again; not by the computer
        if question is not None:
            if self._asked is None or self._asked != (question, latest.signed.state):
                self._asked = (question, latest.signed.state)
                self.chooser.ask(question)
            reply = self.chooser.answer()
            if reply is None:
                if question.computer_at is None or self.clock() < question.computer_at or self.stand_in is None:
                    return
                reply, chosen = pick(self.stand_in, question), False
                self.say(f"no move from you by {clock_time(question.computer_at, self.clock())}: the computer plays "
                         f"{reply} for you, to answer {possessive(self.opponent)} challenge in time")  # fmt: skip
                self.chooser.withdraw("the computer played this move for you")
        try:
            state = self._next_state(latest.state, reply)
        except moves.IllegalMove as illegal:
            if not chosen:  # nothing the player could change: say it once, and leave it to the chain
                self._cannot_move = latest.signed.state
                self.say(f"no move can follow turn {latest.state.turn}: {illegal}")
            else:
                self.say(f"{reply} cannot be played: {illegal}")
                self._asked = None
            return
        self._asked = None
        self._play(state)

    def _question(self, latest: State) -> Question | None:
        """What the player must choose for the move after ``latest``, or None when the move follows by itself."""
        due = self._due if self._due is not None and self._due.turn == latest.turn else None
        if due is None and self._match_over(latest):
            return None
        deadline = None if due is None else due.deadline
        computer_at = None if due is None else due.computer_at
        if self.fixed.app == RPS:
            if latest.app.position in ("Start", "RoundProposed"):  # type: ignore[attr-defined]
                return Question(latest.turn + 1, "rps", deadline=deadline, computer_at=computer_at)
            return None
        mark = moves.xo_mark(latest.app)  # type: ignore[arg-type]
        if mark is None:
            return None
        board = moves.xo_board(latest.app)  # type: ignore[arg-type]
        return Question(latest.turn + 1, "xo", board, mark, deadline, computer_at)

    def _match_over(self, latest: State) -> bool:
        done = latest.app.round if self.fixed.app == RPS else self._games  # type: ignore[attr-defined]
        return moves.match_over(latest, self.fixed, done, self.terms.rounds)

    def _next_state(self, latest: State, reply: Answer | None) -> State:
        """The move after ``latest`` with the player's ``reply`` (if one was asked for); never final when a challenge
        waits on it (a response cannot be)."""
        answering = self._due is not None and self._due.turn == latest.turn
        if not answering and self._match_over(latest):
            return moves.final_of(latest)
        if self.fixed.app == RPS:
            return self._rps_move(latest, None if reply is None else str(reply))
        space = None if reply is None else int(reply)
        return moves.xo_next(latest, self.fixed, space)

    def _rps_move(self, latest: State, throw: str | None) -> State:
        data = latest.app
        position = data.position  # type: ignore[attr-defined]
        if position == "Start":
            if throw is None:
                raise moves.IllegalMove("a proposal needs a throw")
            secret = Secret(throw, secrets.token_bytes(32))
            written = self.store.save_secret(self.id, data.round + 1, secret, durable=False)  # type: ignore[attr-defined]
            self._unsynced = max(self._unsynced, written)  # on disk with the commitment, before it is sent
            return moves.rps_next(latest, self.fixed, secret.throw, secret.salt)
        if position == "RoundProposed":
            return moves.rps_next(latest, self.fixed, throw, None)
        if position == "RoundAccepted":
            kept = self.store.secret(self.id, data.round)  # type: ignore[attr-defined]
            if kept is None:
                raise NotPlayable(f"the throw of round {data.round} is not in the store: it cannot be revealed")  # type: ignore[attr-defined]
            return moves.rps_next(latest, self.fixed, kept.throw, kept.salt)
        return moves.rps_next(latest, self.fixed, None, None)

    def _play(self, state: State) -> None:
        """Sign ``state``, keep it, send it; and put it on chain as the response when a challenge waits on it."""
        channel = self._channel
        signed = tx.sign_move(self.fixed, state, self.signer)
        channel.accept(state, signed)
        self._unsynced = max(self._unsynced, self.store.save_state(self.id, state.turn, signed, durable=False))
        self._sync()  # the move, and the state it answers: one commit, before it is sent
        if self.fixed.app != RPS:
            self._games = moves.rounds_done(state, self._games)
        self._publish(signed)
        self._progress = time.monotonic()  # the opponent can answer once the broker has it, not before
        self._clear_soon()
        self.say(self.story.tell(state))
        due = self._due
        if due is not None and due.turn + 1 == state.turn:
            try:
                self.chain.submit(tx.respond(self.signer, self.fixed, signed), "the response")
            except Rejected as refused:  # e.g. past the deadline: the chain decides; the next poll looks again
                self._defended = None
                self.say(f"could not answer the challenge with turn {state.turn}: {refused.message}")
                return
            self._due = None
            self.say(f"answered {possessive(self.opponent)} challenge on chain with your move of turn {state.turn}")

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
        self._countersigned_at = time.monotonic()
        self._next_poll = min(self._next_poll, self._countersigned_at + PASS_SECONDS)
        self.say(f"you agreed to close the channel on {self.story.balances(latest.state.balances)}")

    def _conclude_when_due(self) -> str | None:
        final = self._channel.latest
        if self._concluded_at is None:
            self._concluded_at = self.clock()
        proposer = mover(final.state.turn) == self.me
        if (proposer or self.clock() - self._concluded_at > CONCLUDE_GRACE_SECONDS) and self._chain_due():
            record = self.chain.channel(self.address)
            if record is not None and record.status == CLOSED:
                return "concluded"
            if record is not None and self._expired(record):
                return self._finalize_expired(record)
            try:
                self.chain.submit(tx.conclude(self.signer, self.fixed, final.signed), "the conclude")
            except Rejected:  # the opponent's conclude landed first, or a challenge expired: the chain says which
                record = self.chain.channel(self.address)
                if record is not None and record.challenge is not None and record.status != CLOSED:
                    self._challenge_expired = True  # by the chain's clock, which may be ahead of ours
                    return self._finalize_expired(record)
                if record is None or record.status != CLOSED:
                    raise
            self.say(f"concluded the channel on chain, paying {self.story.balances(final.state.balances)}")
            return "concluded"
        return None

    # -- the person's question --------------------------------------------------------------------------------
    def _drop_stale_question(self) -> None:
        """Withdraw the question asked once its move can no longer count: the channel moved on without it."""
        if self._asked is None:
            return
        question, base = self._asked
        latest = self._channel.latest
        if latest.signed.state != base or not self._channel.my_move:
            self._asked = None
            self.chooser.withdraw(f"turn {question.turn} is no longer yours to play: the channel is at turn "
                                  f"{latest.state.turn}")  # fmt: skip

    def _withdraw(self, reason: str) -> None:
        if self._asked is not None:
            self._asked = None
            self.chooser.withdraw(reason)

    # -- the chain --------------------------------------------------------------------------------------------
    def _watch_chain(self) -> str | None:
        record = self.chain.channel(self.address)
        self._reach_chain()
        if record is None:
            return None
        if record.status == CLOSED:
            return self._closed(record)
        self._follow(record)
        challenge = record.challenge
        if challenge is not None and challenge.challenger != self.signer.public_key and self._expired(record):
            return self._finalize_expired(record)
        if challenge is None or challenge.challenger == self.signer.public_key:
            if self._due is not None:
                self.say("the challenge against you is cleared")
            self._due, self._opponents_challenge = None, None
            if challenge is None:
                self._own = None
                return None
            return self._own_challenge(record)
        self._own = None
        self._defend(record)
        return None

    def _follow(self, record: Record) -> None:
        """Play on from the chain's state when it is newer than this player's (a response or checkpoint there)."""
        channel = self._channel
        if record.turn > channel.latest.state.turn and record.state is not None:
            state = self._decode(record.state)
            channel.adopt(state, SignedState(record.state, (None, None)))
            self.store.save_state(self.id, state.turn, channel.latest.signed)
            if self.fixed.app != RPS:
                self._games = moves.rounds_done(state, self._games)
            self._progress = time.monotonic()
            self.say(f"the chain holds a newer state than your store, playing on from it: {self.story.tell(state)}")

    def _closed(self, record: Record) -> str:
        """How the channel closed, said when it cost this player a challenge."""
        if self._channel.concluded:
            return "concluded"
        if self._opponents_challenge is not None and record.payout is not None:
            turn, _deadline = self._opponents_challenge
            paid, deposit = record.payout[self.me], self.fixed.deposits[self.me]
            change = f"{deposit - paid} chips down" if paid < deposit else f"{paid - deposit} chips up"
            self.say(f"YOU LOST THE CHALLENGE: nobody answered {possessive(self.opponent)} challenge at turn {turn} "
                     f"in time, so the chain paid that turn out: {paid} to you, {record.payout[1 - self.me]} to "
                     f"{self.opponent} (you paid {deposit} in: {change})")  # fmt: skip
        return "finalized"

    def _own_challenge(self, record: Record, finalize: bool = True) -> str | None:
        """This player's challenge on ``record``: cleared once a newer state is held (:meth:`_clear_due`); with
        ``finalize``, finalized once its deadline passed only when nothing held clears it, or when the chain refused
        the clear past the deadline (it ran out by the chain's clock)."""
        challenge = record.challenge
        assert challenge is not None
        if self._own is None or (self._own.turn, self._own.deadline) != (record.turn, challenge.deadline):
            self._own = Own(record.turn, challenge.deadline)
        reply = defence.clearing(self._channel, record)
        if reply is not None and not self._own.expired:
            if self.clock() < self._clear_due(record):
                return None
            outcome = self._clear(record, reply)
            if not self._own.expired:
                return outcome
        return self._finalize_when_due(record, challenge.deadline) if finalize else None

    def _clear_due(self, record: Record) -> float:
        """When this player clears its own challenge with the newer state it holds, by its clock: at once when that is
        its own move; when it is the opponent's answer, once they had CLEAR_GRACE_SECONDS from the first sight of it
        (at most half the time then left) to put it on chain themselves."""
        own = self._own
        assert own is not None
        if mover(record.turn + 1) == self.me:
            return float("-inf")
        if own.clear_at is None:
            now = self.clock()
            own = self._own = own._replace(clear_at=now + min(CLEAR_GRACE_SECONDS, max(0.0, (own.deadline - now) / 2)))
        assert own.clear_at is not None
        return own.clear_at

    def _clear(self, record: Record, reply: defence.Clearing) -> str | None:
        """Clear this player's own challenge on ``record`` with ``reply`` (once per challenge, again after a refusal);
        "concluded" when that was a conclude. A refusal past the deadline leaves only the finalize."""
        own, challenge = self._own, record.challenge
        assert own is not None and challenge is not None
        if own.sent:
            return None  # sent and committed: the chain read next shows it
        self._own = own._replace(sent=True)
        answered = (f"{self.opponent} answered off chain" if mover(record.turn + 1) != self.me
                    else "you moved on since")  # fmt: skip
        try:
            if isinstance(reply, defence.Concluding):
                self.chain.submit(tx.conclude(self.signer, self.fixed, reply.final), "the conclude")
            else:
                self.chain.submit(tx.checkpoint(self.signer, self.fixed, reply.proof), "the checkpoint")
        except Rejected as refused:  # answered on chain meanwhile, or the challenge ran out: the chain says which
            self._own = own
            latest = self.chain.channel(self.address)
            if latest is None or (latest.status, latest.turn, latest.challenge) != (record.status, own.turn, challenge):
                return None  # the chain moved on (answered on chain, or closed): the next read follows it
            self.say(f"could not clear your challenge at turn {own.turn} yet: "
                     f"{clock_times(refused.message, [own.deadline], self.clock())}")  # fmt: skip
            if self.clock() >= own.deadline:
                self._own = own._replace(expired=True)
            return None
        except (Unavailable, TimedOut):
            self._own = own
            raise
        if isinstance(reply, defence.Concluding):
            self.say(f"{answered}: concluded the channel on chain in place of your challenge at turn {own.turn}, "
                     f"paying {self.story.balances(self._decode(reply.final.state).balances)}")  # fmt: skip
            return "concluded"
        self.say(f"{answered}: cleared your challenge at turn {own.turn} on chain with turn {reply.turn}, "
                 "and the match plays on")  # fmt: skip
        return None

    def _finalize_when_due(self, record: Record, deadline: int) -> str | None:
        if self.clock() < max(deadline + FINALIZE_MARGIN_SECONDS, self._finalize_after):
            return None
        try:
            self.chain.submit(tx.finalize(self.signer, self.fixed), "the finalize")
        except Rejected as refused:  # the chain's clock (its blocks') is behind ours: try again soon
            self._finalize_after = self.clock() + FINALIZE_MARGIN_SECONDS
            if self._own is not None:  # a state that clears the challenge is sent first again
                self._own = self._own._replace(expired=False)
            self.say(f"not final yet: {clock_times(refused.message, [deadline], self.clock())}")
            return None
        held = "" if record.state is None else self.story.balances(self._decode(record.state).balances)
        by = clock_time(deadline, self.clock())
        self.say(f"{self.opponent} did not answer your challenge by {by}: finalized, paying the challenged "
                 f"state ({held})")  # fmt: skip
        return "finalized"

    def _expired(self, record: Record) -> bool:
        """Whether the challenge on ``record`` ran out (by this clock, or by a refusal that said so): then only a
        finalize is left, and anyone may send it."""
        challenge = record.challenge
        if challenge is None:
            return False
        return self._challenge_expired or self.clock() >= challenge.deadline + FINALIZE_MARGIN_SECONDS

    def _finalize_expired(self, record: Record) -> str | None:
        """Close a channel whose challenge ran out with the finalize the rules leave (the challenger's, or this
        player's if theirs does not come), so that no side leaves it stuck; it pays the challenged state."""
        challenge = record.challenge
        assert challenge is not None
        if self.clock() < max(challenge.deadline, self._finalize_after):
            return None
        try:
            self.chain.submit(tx.finalize(self.signer, self.fixed), "the finalize")
        except Rejected as refused:  # finalized meanwhile, or the chain's clock is behind ours: look again soon
            latest = self.chain.channel(self.address)
            if latest is not None and latest.status == CLOSED:
                return self._closed(latest)
            self._finalize_after = self.clock() + FINALIZE_MARGIN_SECONDS
            self.say(f"not final yet: {clock_times(refused.message, [challenge.deadline], self.clock())}")
            return None
        held = "" if record.state is None else self.story.balances(self._decode(record.state).balances)
        self.say(f"the challenge at turn {record.turn} ran out at {clock_time(challenge.deadline, self.clock())}: "
                 f"finalized, paying the challenged state ({held})")  # fmt: skip
        closed = self.chain.channel(self.address)
        return self._closed(closed) if closed is not None and closed.status == CLOSED else "finalized"

    def _defend(self, record: Record) -> None:
        """Answer the opponent's challenge on ``record`` (once per challenge, again after a refusal)."""
        challenge = record.challenge
        assert challenge is not None
        key = (record.turn, challenge.deadline)
        if self._defended == key:
            return
        self._defended = key
        self._opponents_challenge = key
        self._due = None
        channel = self._channel
        latest = channel.latest
        if latest.state.final and not channel.concluded and mover(latest.state.turn) != self.me:
            self._countersign()  # the opponent proposed the end: agreeing is the best answer (conclude)
        reply = defence.answer(channel, record)
        until = deadline_text(challenge.deadline, self.clock())
        if reply is None:
            self.say(f"{self.opponent} challenged at turn {record.turn} (until {until}), where the move is theirs: "
                     "nothing for you to answer")  # fmt: skip
            return
        try:
            if isinstance(reply, defence.Concluding):
                self.say(f"{self.opponent} challenged you at turn {record.turn}: concluding on the final state you "
                         "both signed")  # fmt: skip
                self.chain.submit(tx.conclude(self.signer, self.fixed, reply.final), "the conclude")
            elif isinstance(reply, defence.Checkpointing):
                self.say(f"{self.opponent} challenged you at turn {record.turn}, to answer before {until}: answering "
                         f"with turn {reply.turn}, the newest state you hold")  # fmt: skip
                self.chain.submit(tx.checkpoint(self.signer, self.fixed, reply.proof), "the checkpoint")
                self.say(f"answered {possessive(self.opponent)} challenge on chain with turn {reply.turn}")
            else:
                self._owe_move(record, reply.challenged)
        except Rejected as refused:  # e.g. the peer moved on chain meanwhile: look again at the next poll
            self._defended = None
            self.say(f"could not answer the challenge yet: {refused.message}")
        except (Unavailable, TimedOut):
            self._defended = None
            raise

    def _owe_move(self, record: Record, challenged: Held) -> None:
        """The answer is this player's next move from the chain's state: play on from it, and ask for the move with
        the deadline (the computer plays it at half the time left, if there is a stand-in)."""
        challenge = record.challenge
        assert challenge is not None
        channel = self._channel
        if channel.latest.signed.state != challenged.signed.state:
            channel.rewind(challenged)
            self.store.save_state(self.id, record.turn, challenged.signed)
            self.say(f"playing on from turn {record.turn} as the chain recorded it")
        now = self.clock()
        computer_at = now + (challenge.deadline - now) / 2 if self.stand_in is not None else None
        self._due = Due(record.turn, challenge.deadline, computer_at)
        fallback = (f"if you have not moved by {clock_time(computer_at, now)}, the computer plays for you"
                    if computer_at is not None else "nobody plays it for you")  # fmt: skip
        self.say(f"*** {self.opponent} CHALLENGED YOU at turn {record.turn}: your move must be on chain "
                 f"by {deadline_text(challenge.deadline, now)}; {fallback} ***")  # fmt: skip

    def challenge(self) -> None:
        """Challenge the opponent with the newest state held (``chips challenge``, or ``--patience``); before any
        move, the chain's own turn 0, which the opener must answer with the first move."""
        self._challenge()

    def _challenge(self) -> None:
        """Challenge with the newest proof the chain takes now. When the chain would refuse every proof held (or did
        refuse one), that is said once and not tried again until this player holds a newer state or the chain moves:
        a refused challenge submitted again only loads a ledger that is already behind."""
        if not self._channel.proof():
            raise NotPlayable("no state is held that the chain can be held to: the match is concluded")
        record = self.chain.channel(self.address)
        if record is None or record.status == CLOSED or record.challenge is not None:
            return  # closed, or challenged already (this player's waits for its deadline; the opponent's is defended)
        self._progress = time.monotonic()  # whatever comes of it, patience starts again
        tried = (self._channel.latest.signed, record.turn)
        if self._unprovable == tried:
            return
        try:
            proof = challenges.provable(self._channel, record)
            self.chain.submit(tx.challenge(self.signer, self.fixed, proof), "the challenge")
        except (Refused, Rejected) as refused:  # e.g. the opponent challenged first: defending comes first
            self._unprovable = tried
            reason = refused.message if isinstance(refused, Rejected) else str(refused)
            self.say(f"could not challenge {self.opponent}: {reason}; not trying again until the channel moves on")
            return
        self._progress = float("inf")
        self._next_poll = 0.0  # read in this pass: from now on an answer that comes is seen as one
        self.say(f"you challenged {self.opponent} at turn {self._decode(proof[-1].state).turn}: they have "
                 f"{duration(self.fixed.duration)} to answer, or the chain pays that state out")  # fmt: skip

    # -- reaching the chain -----------------------------------------------------------------------------------
    def _chain_due(self) -> bool:
        """Whether the chain may be tried now (always, unless it was out of reach a moment ago)."""
        return time.monotonic() >= self._chain_at

    def _lose_chain(self, error: Unavailable | TimedOut) -> None:
        """The REST API is out of reach, or a transaction was not seen to commit: said once, then tried again after
        a backoff that doubles up to a cap (an answer cut short is looked at afresh then)."""
        self._chain_retry = min(max(2 * self._chain_retry, CHAIN_RETRY_SECONDS[0]), CHAIN_RETRY_SECONDS[1])
        self._chain_at = time.monotonic() + self._chain_retry
        self._defended = None  # an answer cut short is looked at again once the chain answers
        if self._chain_lost is None:
            self._chain_lost = error.message
            self.say(f"{error.message}; retrying (the play off chain goes on)")

    def _reach_chain(self) -> None:
        if self._chain_lost is not None:
            self._chain_lost = None
            self.say("the REST API answers again: resuming")
        self._chain_retry = 0.0

    # -- the broker -------------------------------------------------------------------------------------------
    def _publish(self, signed: SignedState) -> None:
        if self.session is None:  # a watchtower: the peer reads the move from the chain
            return
        online = getattr(self.session, "connected", True)
        try:
            self.session.publish(topic(self.id, self.peer), encode_message(signed),
                                 PUBLISH_TIMEOUT if online else OFFLINE_PUBLISH_TIMEOUT)  # fmt: skip
        except BrokerError as error:  # queued for the reconnection, or lost: the latest state is resent anyway
            if not self._broker_lost:
                self.say(f"{error.message}; the match goes on, and the latest state is sent again once it is back")
            self._broker_lost = True
            return
        self._broker_lost = False

    def _send_latest(self) -> None:
        """Publish the latest state: to the peer a hello if it is as far, what it missed if it is behind, and a
        sign that this player is behind if it is ahead (it answers with its newer state)."""
        self._publish(self._channel.latest.signed)
        self._last_send = time.monotonic()

    def _idle_resent(self, turn: int) -> int:
        """How many times the latest state was resent while idle at ``turn``."""
        at, resent = self._idle_resends
        return resent if at == turn else 0

    def _idle_wait(self, turn: int) -> float:
        """How long the peer is waited for at ``turn`` before the latest state is resent (again)."""
        return min(IDLE_RESEND_SECONDS * 2 ** self._idle_resent(turn), IDLE_RESEND_MAX_SECONDS)

    def _resend(self, behind: int) -> None:
        """Answer a peer that sent the older turn ``behind`` with the latest state. A peer further on than the last one
        answered (restarted from its store a moment after the previous answer) is answered at once, not left waiting
        for the idle resend; old states replayed over and over are answered at most once a second."""
        if behind > self._resent_for or self.clock() - self._last_resend >= RESEND_SECONDS:
            self._resent_for = max(behind, self._resent_for)
            self._last_resend = self.clock()
            self._send_latest()

    @property
    def _channel(self) -> Channel:
        assert self.channel is not None
        return self.channel


def state_turn(channel: Channel, payload: bytes) -> int:
    """The turn of the state in a message :meth:`Channel.check` found stale (so it decodes)."""
    return channel.decode(decode_message(payload).state).turn
