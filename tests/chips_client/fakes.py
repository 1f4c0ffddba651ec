"""Stand-ins for the match's transport and chain: an in-memory broker, and a chain applying chips_tp's own rules.

The broker keeps what is published to a topic nobody is subscribed to (a persistent
session, QoS 1) and can be told to drop or forge; the chain runs each submitted
transaction through :mod:`chips_tp.rules`, exactly as the processor judges it (a refusal
raised as the REST API's :class:`Rejected`), with a clock the test moves.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable

from chips_client.asking import Question
from chips_client.match import Match
from chips_tp import rules
from chips_tp.channel import MIN_DURATION, Fixed, channel_id
from chips_tp.family import channel_address
from chips_tp.ops import Challenge, Checkpoint, Conclude, Finalize, Join, Open, Respond
from chips_tp.payload import parse_payload
from chips_tp.state import Channel
from client_core.errors import Rejected, Unavailable
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader


class FakeBroker:
    """Topics to subscribers; messages for a topic with no subscriber wait for one (a persistent session)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.subscribers: dict[str, list[Callable[[str, bytes], None]]] = defaultdict(list)
        self.waiting: dict[str, list[bytes]] = defaultdict(list)
        self.published: list[tuple[str, bytes]] = []
        self.drop: Callable[[str, bytes], bool] = lambda _topic, _payload: False

    def session(
        self, on_message: Callable[[str, bytes], None], on_reconnect: Callable[[], None] | None = None
    ) -> FakeSession:
        return FakeSession(self, on_message, on_reconnect)

    def publish(self, topic: str, payload: bytes) -> None:
        with self.lock:
            self.published.append((topic, payload))
            if self.drop(topic, payload):
                return
            receivers = list(self.subscribers[topic])
            if not receivers:
                self.waiting[topic].append(payload)
        for receive in receivers:
            receive(topic, payload)


class FakeSession:
    """One client's connection to :class:`FakeBroker`, with :class:`client_core.broker.BrokerSession`'s methods."""

    def __init__(
        self, broker: FakeBroker, on_message: Callable[[str, bytes], None], on_reconnect: Callable[[], None] | None
    ) -> None:
        self.broker, self.on_message, self.on_reconnect = broker, on_message, on_reconnect
        self.topics: list[str] = []

    def connect(self, timeout: float) -> None:
        assert timeout > 0

    def subscribe(self, topic: str, timeout: float) -> None:
        with self.broker.lock:
            self.broker.subscribers[topic].append(self.on_message)
            self.topics.append(topic)
            waiting = self.broker.waiting.pop(topic, [])
        for payload in waiting:
            self.on_message(topic, payload)

    def publish(self, topic: str, payload: bytes, timeout: float) -> None:
        self.broker.publish(topic, payload)

    def close(self) -> None:
        with self.broker.lock:
            for topic in self.topics:
                self.broker.subscribers[topic].remove(self.on_message)
            self.topics.clear()


class FakeChain:
    """One running channel's record, changed only by the chips rules; ``now`` is the BlockInfo time. While ``away``,
    every call raises :class:`Unavailable`, as a REST API that cannot be reached does."""

    def __init__(self, fixed: Fixed, now: float = 1_700_000_000.0) -> None:
        self.now = now
        self.lock = threading.Lock()
        self.submitted: list[str] = []
        self.refusals: list[str] = []
        opening = Open(fixed.participants[1], fixed.app, fixed.stake, fixed.deposits, fixed.duration, fixed.nonce)
        opener, joiner = fixed.participants
        channel, _ = rules.open_channel(None, rules.credited(None, opener, 10_000), opening, opener, MIN_DURATION)
        channel, _ = rules.join(
            channel, rules.credited(None, joiner, 10_000), Join(channel_id(fixed), channel.held), joiner
        )
        self.record: Channel = channel
        self.away = False

    def _reach(self) -> None:
        if self.away:
            raise Unavailable("cannot reach the REST API at http://127.0.0.1:9: Connection refused")

    @property
    def address(self) -> str:
        return channel_address(self.record.id)

    def clock(self) -> float:
        return self.now

    def channel(self, address: str) -> Channel | None:
        self._reach()
        with self.lock:
            return self.record if address == self.address else None

    def submit(self, transaction: Transaction, what: str) -> None:
        self._reach()
        header = TransactionHeader()
        header.ParseFromString(transaction.header)
        op = parse_payload(transaction.payload)
        signer = header.signer_public_key
        now = int(self.now)
        with self.lock:
            try:
                match op:
                    case Conclude():
                        self.record = rules.conclude(self.record, op, signer, now)
                    case Challenge():
                        self.record = rules.challenge(self.record, op, signer, now)
                    case Checkpoint():
                        self.record = rules.checkpoint(self.record, op, signer, now)
                    case Respond():
                        self.record = rules.respond(self.record, op, signer, now)
                    case Finalize():
                        self.record = rules.finalize(self.record, op, now)
            except rules.Refused as refused:  # as the REST API reports the validator's refusal
                self.refusals.append(str(refused))
                raise Rejected(f"the validator rejected {what}: {refused}") from refused
            self.submitted.append(op.NAME)


class Silent:
    """A person who never answers: the questions the match asks and withdraws are recorded."""

    def __init__(self) -> None:
        self.asked: list[Question] = []
        self.withdrawn: list[str] = []

    def ask(self, question: Question) -> None:
        self.asked.append(question)

    def answer(self) -> None:
        return None

    def withdraw(self, reason: str) -> None:
        self.withdrawn.append(reason)


def step_until(sides: list[Match], done: Callable[[], bool], passes: int = 3000) -> None:
    """Pass through each side's loop in turn (no waiting: the fake broker delivers at once) until ``done()``."""
    for _ in range(passes):
        if done():
            return
        for side in sides:
            side.step(0)
    raise AssertionError(f"not reached in {passes} passes")
