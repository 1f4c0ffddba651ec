"""xo-devnet's embedded MQTT broker (amqtt), driven by the players' transport (client_core.broker)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future
from typing import TypeVar

import pytest

from client_core import broker as client_broker
from client_core.broker import TAKEOVER_DELAY_CAP, BrokerAddress, BrokerSession, BrokerUnreachable
from tests.mqtt_clients import Hostile, Reconnections
from xo_core.log_limits import LogLimiter
from xo_devnet.mqtt_broker import LOG_LIMITER, EmbeddedBroker, _LimitedLines

SECONDS = 5.0
PLAYERS = 30
T = TypeVar("T")


class BrokerThread:
    """An EmbeddedBroker on an event loop of its own thread, as xo-devnet runs it beside the ledger."""

    def __init__(self, port: int = 0) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.embedded = EmbeddedBroker("127.0.0.1", port)

    def run(self, work: Callable[[], Awaitable[T]]) -> T:
        async def call() -> T:
            return await work()

        return asyncio.run_coroutine_threadsafe(call(), self.loop).result(SECONDS * 2)

    def address(self) -> BrokerAddress:
        return BrokerAddress.parse(self.embedded.url, {})

    def session_state(self, client_id: str) -> str | None:
        async def state() -> str | None:
            found = self.embedded.broker.sessions.get(client_id)
            return None if found is None else str(found[0].transitions.state)

        return self.run(state)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(SECONDS)
        self.loop.close()


@pytest.fixture
def broker() -> Iterator[BrokerThread]:
    running = BrokerThread()
    running.run(running.embedded.start)
    try:
        yield running
    finally:
        running.run(running.embedded.stop)
        running.close()


@pytest.fixture
def sessions() -> Iterator[list[BrokerSession]]:
    opened: list[BrokerSession] = []
    yield opened
    for session in opened:
        session.close()


def connected(
    sessions: list[BrokerSession], broker: BrokerThread, client_id: str, inbox: queue.Queue[tuple[str, bytes]]
) -> BrokerSession:
    session = BrokerSession(broker.address(), client_id, lambda topic, payload: inbox.put((topic, payload)))
    sessions.append(session)
    session.connect(SECONDS)
    return session


def gone_offline(sessions: list[BrokerSession], broker: BrokerThread, client_id: str, topic: str) -> None:
    """``client_id`` subscribed to ``topic`` and went offline, as the broker has seen by the time this returns.

    amqtt 0.12 drops a message in flight to a client that is still disconnecting (Yakifo/amqtt#401): what a test
    publishes next is for a player who went offline a moment ago."""
    away = connected(sessions, broker, client_id, queue.Queue())
    away.subscribe(topic, SECONDS)
    away.close()
    deadline = time.monotonic() + SECONDS
    while broker.session_state(client_id) != "disconnected" and time.monotonic() < deadline:
        time.sleep(0.01)


def test_port_0_picks_a_free_port_that_the_url_names(broker: BrokerThread) -> None:
    assert broker.embedded.port > 0
    assert broker.embedded.url == f"mqtt://127.0.0.1:{broker.embedded.port}"


def test_a_message_goes_from_one_player_to_the_other(broker: BrokerThread, sessions: list[BrokerSession]) -> None:
    inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
    bob = connected(sessions, broker, "embedded-bob", inbox)
    bob.subscribe("xo/chips/c1/bob", SECONDS)
    alice = connected(sessions, broker, "embedded-alice", queue.Queue())
    alice.publish("xo/chips/c1/bob", b"\x00signed state\xff", SECONDS)
    assert inbox.get(timeout=SECONDS) == ("xo/chips/c1/bob", b"\x00signed state\xff")


def test_a_player_offline_gets_what_was_sent_meanwhile(broker: BrokerThread, sessions: list[BrokerSession]) -> None:
    gone_offline(sessions, broker, "embedded-away-bob", "xo/chips/c2/bob")
    alice = connected(sessions, broker, "embedded-away-alice", queue.Queue())
    for turn in range(3):
        alice.publish("xo/chips/c2/bob", f"state {turn}".encode(), SECONDS)
    inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
    connected(sessions, broker, "embedded-away-bob", inbox)
    assert [inbox.get(timeout=SECONDS)[1] for _ in range(3)] == [b"state 0", b"state 1", b"state 2"]


def test_a_player_back_has_its_subscription_confirmed_before_it_acknowledges_what_waited_for_it(
    broker: BrokerThread, sessions: list[BrokerSession]
) -> None:
    """A chips match acknowledges a state only once it kept it, and its loop keeps states only once its subscription
    is confirmed: amqtt 0.12 alone confirmed nothing until what waited was acknowledged, or 5 s had passed."""
    gone_offline(sessions, broker, "embedded-back-bob", "xo/chips/c5/bob")
    alice = connected(sessions, broker, "embedded-back-alice", queue.Queue())
    alice.publish("xo/chips/c5/bob", b"state 1", SECONDS)
    arrived: queue.Queue[tuple[bytes, Future[None]]] = queue.Queue()

    def keep_later(_topic: str, payload: bytes) -> Future[None]:
        handled: Future[None] = Future()
        arrived.put((payload, handled))
        return handled

    bob = BrokerSession(broker.address(), "embedded-back-bob", keep_later)
    sessions.append(bob)
    bob.connect(SECONDS)
    bob.subscribe("xo/chips/c5/bob", 4.0)  # raises BrokerTimedOut if the broker holds it for its 5 s
    payload, handled = arrived.get(timeout=SECONDS)
    assert payload == b"state 1"
    handled.set_result(None)
    alice.publish("xo/chips/c5/bob", b"state 3", SECONDS)
    payload, handled = arrived.get(timeout=SECONDS)
    assert payload == b"state 3"
    handled.set_result(None)


def test_after_a_restart_of_the_broker_the_subscriptions_are_made_again(
    broker: BrokerThread, sessions: list[BrokerSession]
) -> None:
    inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
    back = threading.Event()
    bob = BrokerSession(
        broker.address(), "embedded-restart-bob", lambda topic, payload: inbox.put((topic, payload)),
        on_reconnect=back.set,
    )  # fmt: skip
    sessions.append(bob)
    bob.connect(SECONDS)
    bob.subscribe("xo/chips/c3/bob", SECONDS)
    port = broker.embedded.port
    broker.run(broker.embedded.stop)  # a new amqtt Broker on the same port: it knows no session
    broker.embedded.requested_port = port
    broker.run(broker.embedded.start)
    assert back.wait(SECONDS * 2), "bob's session never reported its reconnection"
    alice = connected(sessions, broker, "embedded-restart-alice", queue.Queue())
    sent = [f"after the restart {turn}".encode() for turn in range(5)]
    for payload in sent:
        alice.publish("xo/chips/c3/bob", payload, SECONDS)
    assert [inbox.get(timeout=SECONDS)[1] for _ in sent] == sent


def test_a_newcomer_is_handed_only_the_retained_messages_of_what_it_subscribed_to(
    broker: BrokerThread, sessions: list[BrokerSession]
) -> None:
    """MQTT hands retained messages to a subscription that matches them, and only then (3.3.1-6); amqtt 0.12 alone
    also handed every connecting client the retained messages matching anyone's subscription."""
    connected(sessions, broker, "retained-reader", queue.Queue()).subscribe("xo/chips/offers/#", SECONDS)
    poster = connected(sessions, broker, "retained-poster", queue.Queue())
    poster.publish("xo/chips/offers/xo/carol/1", b"an open offer", SECONDS, retain=True)
    inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
    newcomer = connected(sessions, broker, "retained-newcomer", inbox)
    newcomer.subscribe("xo/chips/c9/dave", SECONDS)
    poster.publish("xo/chips/c9/dave", b"a state", SECONDS)
    assert inbox.get(timeout=SECONDS) == ("xo/chips/c9/dave", b"a state")  # nothing of the offers' topic before it
    newcomer.subscribe("xo/chips/offers/#", SECONDS)
    assert inbox.get(timeout=SECONDS) == ("xo/chips/offers/xo/carol/1", b"an open offer")


def test_many_players_connecting_at_once_all_have_their_subscriptions_confirmed(
    broker: BrokerThread, sessions: list[BrokerSession]
) -> None:
    """A house's accepters connect together while an offer is retained: amqtt 0.12 alone walked every
    subscription on the broker for each connection, so one subscribing meanwhile ended another's connection on
    "dictionary changed size during iteration", its SUBSCRIBE never confirmed."""
    connected(sessions, broker, "crowd-reader", queue.Queue()).subscribe("xo/chips/offers/#", SECONDS)
    poster = connected(sessions, broker, "crowd-poster", queue.Queue())
    poster.publish("xo/chips/offers/xo/house/1", b"the house's offer", SECONDS, retain=True)
    failures: queue.Queue[BaseException] = queue.Queue()
    gate = threading.Barrier(PLAYERS)

    def join(number: int) -> None:
        try:
            player = BrokerSession(broker.address(), f"crowd-{number}", lambda _topic, _payload: None)
            sessions.append(player)
            gate.wait(SECONDS)
            player.connect(SECONDS)
            for table in range(3):
                player.subscribe(f"xo/chips/c{number}-{table}/player", SECONDS)
        except BaseException as error:  # handed to the test's thread, which fails on it
            failures.put(error)

    threads = [threading.Thread(target=join, args=(number,)) for number in range(PLAYERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(SECONDS * 3)
    assert failures.empty(), f"{failures.qsize()} of {PLAYERS} players failed, first: {failures.get()}"


def test_a_session_taken_over_comes_back_subscribed(broker: BrokerThread, sessions: list[BrokerSession]) -> None:
    inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
    back = Reconnections()
    bob = BrokerSession(
        broker.address(), "embedded-takeover-bob", lambda topic, payload: inbox.put((topic, payload)),
        on_reconnect=back,
    )  # fmt: skip
    sessions.append(bob)
    bob.connect(SECONDS)
    bob.subscribe("xo/chips/c4/bob", SECONDS)
    hostile = Hostile(broker.embedded.port, "embedded-takeover-bob")
    assert back.next(SECONDS), "bob's session never came back after the takeover"
    hostile.stop()
    alice = connected(sessions, broker, "embedded-takeover-alice", queue.Queue())
    alice.publish("xo/chips/c4/bob", b"after the takeover", SECONDS)
    assert inbox.get(timeout=SECONDS) == ("xo/chips/c4/bob", b"after the takeover")


def test_a_session_fought_over_backs_off_and_comes_back_when_the_fight_ends(
    broker: BrokerThread, sessions: list[BrokerSession], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client_broker, "RECONNECT_DELAYS", (0.1, 5.0))  # half the product's: the fight takes half
    inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
    back = Reconnections()
    bob = BrokerSession(
        broker.address(), "embedded-fight-bob", lambda topic, payload: inbox.put((topic, payload)), on_reconnect=back
    )
    sessions.append(bob)
    bob.connect(SECONDS)
    bob.subscribe("xo/chips/c5/bob", SECONDS)
    hostile = Hostile(broker.embedded.port, "embedded-fight-bob", fight=True)
    time.sleep(1.25)  # paho alone comes back every 0.1 s: about 10 times; backing off (0.1, 0.2, 0.4 s...) 3 or 4
    hostile.stop()
    assert 1 <= back.count <= 5, f"bob came back {back.count} times in 1.25 s of a fight"
    alice = connected(sessions, broker, "embedded-fight-alice", queue.Queue())
    deadline = time.monotonic() + TAKEOVER_DELAY_CAP + SECONDS  # bob may be waiting out his longest delay
    while time.monotonic() < deadline:
        alice.publish("xo/chips/c5/bob", b"after the fight", SECONDS)
        with contextlib.suppress(queue.Empty):
            assert inbox.get(timeout=0.5) == ("xo/chips/c5/bob", b"after the fight")
            return
    raise AssertionError("bob's session never came back")


def test_a_session_that_never_gives_up_waits_for_the_broker_to_start(
    sessions: list[BrokerSession], closed_port: int
) -> None:
    port = closed_port  # until the broker listens there; nobody else is given it meanwhile
    said: queue.Queue[str] = queue.Queue()
    inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
    where = BrokerAddress.parse(f"mqtt://127.0.0.1:{port}", {})
    bob = BrokerSession(where, "embedded-patient-bob", lambda topic, payload: inbox.put((topic, payload)), say=said.put)
    sessions.append(bob)
    bob.connect(SECONDS)
    bob.subscribe("xo/chips/c6/bob", SECONDS)
    bob.publish("xo/chips/c6/bob", b"queued while away", SECONDS)
    assert said.get(timeout=SECONDS) == f"cannot reach the broker at {where.url}: Connection refused; retrying"
    late = BrokerThread(port)
    late.run(late.embedded.start)
    try:
        assert inbox.get(timeout=SECONDS * 2) == ("xo/chips/c6/bob", b"queued while away")
        assert said.get(timeout=SECONDS) == f"connected to the broker at {where.url} again"
    finally:
        bob.close()
        late.run(late.embedded.stop)
        late.close()


def test_a_port_in_use_fails_the_start() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        running = BrokerThread(taken.getsockname()[1])
        try:
            with pytest.raises(OSError, match="address already in use"):
                running.run(running.embedded.start)
        finally:
            running.run(running.embedded.stop)
            running.close()


def test_stopping_ends_the_sessions_and_frees_the_port(sessions: list[BrokerSession]) -> None:
    running = BrokerThread()
    running.run(running.embedded.start)
    try:
        bob = connected(sessions, running, "embedded-stopped-bob", queue.Queue())
        where = running.address()
        started = time.monotonic()
        running.run(running.embedded.stop)
        assert time.monotonic() - started < SECONDS
        deadline = time.monotonic() + SECONDS
        while bob.connected and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not bob.connected
        with pytest.raises(BrokerUnreachable, match="Connection refused"):
            BrokerSession(where, "embedded-late", lambda topic, payload: None).connect(SECONDS)
    finally:
        running.close()


JUNK = [b"\x10\xff\xff\xff\xff\x7f junk", b"GET / HTTP/1.1\r\n\r\n", b""]
"""What anyone on the machine may send the broker: a CONNECT of impossible length, HTTP, nothing at all."""


class RootLines(logging.Handler):
    """What reaches the root logger's handlers: what xo-devnet writes to its terminal."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()}")


@pytest.fixture
def root_lines() -> Iterator[RootLines]:
    handler = RootLines()
    logging.getLogger().addHandler(handler)
    try:
        yield handler
    finally:
        logging.getLogger().removeHandler(handler)


def test_junk_connections_write_a_line_per_kind_and_a_count_not_a_line_each(
    broker: BrokerThread, sessions: list[BrokerSession], root_lines: RootLines
) -> None:
    for payload in JUNK * 10:
        with socket.create_connection(("127.0.0.1", broker.embedded.port), timeout=SECONDS) as junk:
            junk.sendall(payload)
            junk.shutdown(socket.SHUT_WR)
            junk.settimeout(SECONDS)
            with contextlib.suppress(OSError):
                while junk.recv(1024):
                    pass
    connected(sessions, broker, "after-the-junk", queue.Queue())  # the broker still serves
    written = list(root_lines.lines)
    assert 1 <= len(written) <= 4, written  # one line for each of amqtt's kinds of complaint, not 60
    assert all(line.startswith("xo_devnet.mqtt_broker: amqtt.broker: ") for line in written), written
    broker.run(lambda: asyncio.sleep(0, LOG_LIMITER.flush()))
    assert any(line.endswith("more like it in the last 10 s)") for line in root_lines.lines[len(written) :])


def test_a_client_id_amqtt_quotes_in_a_warning_is_written_escaped(root_lines: RootLines) -> None:
    hostile = "bob\nxo_devnet: forged line \x1b[2J"
    record = logging.LogRecord(
        "amqtt.broker", logging.WARNING, __file__, 1, "Client %s is reconnecting", (hostile,), None
    )
    _LimitedLines(LogLimiter()).emit(record)
    assert root_lines.lines == [
        "xo_devnet.mqtt_broker: amqtt.broker: Client bob\\x0axo_devnet: forged line \\x1b[2J is reconnecting"
    ]


def test_a_broker_on_a_socket_bound_already_serves_its_port(sessions: list[BrokerSession]) -> None:
    """As in the broker's process, which serves the socket xo-devnet bound (port 0's pick known before it runs)."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    running = BrokerThread()
    running.embedded = EmbeddedBroker("127.0.0.1", port, [listener], backlog=1024)
    running.run(running.embedded.start)
    try:
        assert running.embedded.url == f"mqtt://127.0.0.1:{port}"
        inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
        connected(sessions, running, "bound-bob", inbox).subscribe("xo/chips/c8/bob", SECONDS)
        connected(sessions, running, "bound-alice", queue.Queue()).publish("xo/chips/c8/bob", b"a state", SECONDS)
        assert inbox.get(timeout=SECONDS) == ("xo/chips/c8/bob", b"a state")
    finally:
        running.run(running.embedded.stop)
        running.close()
