"""The broker transport, against a real broker (Debian's mosquitto): addresses, delivery, persistence, failures."""

from __future__ import annotations

import contextlib
import queue
import signal
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path

import pytest

from client_core import broker as client_broker
from client_core.arguments import CommandParser, broker_flags
from client_core.broker import (
    TAKEOVER_DELAY_CAP,
    BrokerAddress,
    BrokerRefused,
    BrokerSession,
    BrokerTimedOut,
    BrokerUnreachable,
)
from client_core.errors import UNAVAILABLE
from tests.mosquitto import TLS_DIR, Mosquitto, running_mosquitto, stop
from tests.mqtt_clients import Hostile, Reconnections

SECONDS = 5.0


class Inbox:
    """What a session received, handed from paho's thread to the test through a queue, as a real receiver does."""

    def __init__(self) -> None:
        self.messages: queue.Queue[tuple[str, bytes]] = queue.Queue()

    def __call__(self, topic: str, payload: bytes) -> None:
        self.messages.put((topic, payload))

    def take(self, count: int) -> list[tuple[str, bytes]]:
        return [self.messages.get(timeout=SECONDS) for _ in range(count)]

    def empty_after(self, seconds: float) -> bool:
        time.sleep(seconds)
        return self.messages.empty()


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    with running_mosquitto(tmp_path_factory.mktemp("mosquitto")) as running:
        yield running


def address(port: int, scheme: str = "mqtt", environ: dict[str, str] | None = None) -> BrokerAddress:
    return BrokerAddress.parse(f"{scheme}://127.0.0.1:{port}", environ or {})


@pytest.fixture
def sessions() -> Iterator[list[BrokerSession]]:
    """Sessions a test opened, closed at its end whatever happens."""
    opened: list[BrokerSession] = []
    yield opened
    for session in opened:
        session.close()


@contextlib.contextmanager
def closed_before_the_broker_stops(sessions: list[BrokerSession]) -> Iterator[None]:
    """Close the test's sessions on leaving, inside a broker's ``with``: a session whose broker has gone closes
    only once paho's pause before its next attempt is over (up to a second), which is not what these tests test."""
    try:
        yield
    finally:
        for session in sessions:
            session.close()


def connected(sessions: list[BrokerSession], where: BrokerAddress, client_id: str, inbox: Inbox) -> BrokerSession:
    session = BrokerSession(where, client_id, inbox)
    sessions.append(session)
    session.connect(SECONDS)
    return session


# --- addresses ----------------------------------------------------------------------------------------------------


def test_an_address_is_a_scheme_a_host_and_a_port_with_the_scheme_s_default_port() -> None:
    assert BrokerAddress.parse("mqtt://127.0.0.1:1883", {}) == BrokerAddress("mqtt", "127.0.0.1", 1883, None, None)
    assert BrokerAddress.parse("mqtt://broker.example", {}).port == 1883
    assert BrokerAddress.parse("MQTTS://broker.example/", {}) == BrokerAddress("mqtts", "broker.example", 8883)
    assert BrokerAddress.parse("mqtt://[::1]:1884", {}).url == "mqtt://[::1]:1884"


def test_credentials_come_from_the_environment_and_never_show() -> None:
    environ = {"XO_BROKER_USERNAME": "alice", "XO_BROKER_PASSWORD": "s3cret"}
    parsed = BrokerAddress.parse("mqtts://broker.example:8884", environ)
    assert (parsed.username, parsed.password) == ("alice", "s3cret")
    assert "s3cret" not in repr(parsed) and "s3cret" not in parsed.url
    assert BrokerAddress.parse("mqtt://h", {"XO_BROKER_USERNAME": ""}).username is None


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1:1883", "expected mqtt://HOST:PORT or mqtts://HOST:PORT"),
        ("127.0.0.1:1883", "expected mqtt://HOST:PORT"),
        ("mqtt://alice:pw@127.0.0.1", "give the user and password in $XO_BROKER_USERNAME"),
        ("mqtt://:1883", "no host"),
        ("mqtt://h:1883/topic", "no path, query or fragment"),
        ("mqtt://h:99999", "invalid broker URL 'mqtt://h:99999': Port out of range"),
        ("mqtt://h:x", "invalid broker URL"),
        ("mqtt://h:0", "port 0"),
    ],
)
def test_a_malformed_address_is_refused_with_the_reason(url: str, reason: str) -> None:
    with pytest.raises(ValueError) as refused:
        BrokerAddress.parse(url, {})
    assert reason in str(refused.value)


def test_a_password_without_a_user_is_refused() -> None:
    with pytest.raises(ValueError, match=r"\$XO_BROKER_PASSWORD is set but \$XO_BROKER_USERNAME is not"):
        BrokerAddress.parse("mqtt://h", {"XO_BROKER_PASSWORD": "pw"})


# --- delivery ---------------------------------------------------------------------------------------------------


def test_a_published_message_reaches_the_subscriber_byte_for_byte(
    broker: Mosquitto, sessions: list[BrokerSession]
) -> None:
    inbox = Inbox()
    bob = connected(sessions, address(broker.port), "test-delivery-bob", inbox)
    bob.subscribe("xo/chips/c1/bob", SECONDS)
    alice = connected(sessions, address(broker.port), "test-delivery-alice", Inbox())
    payload = bytes(range(256))
    alice.publish("xo/chips/c1/bob", payload, SECONDS)
    alice.publish("xo/chips/c1/somebody-else", b"not for bob", SECONDS)
    assert inbox.take(1) == [("xo/chips/c1/bob", payload)]
    assert inbox.empty_after(0.2)


def test_a_retained_message_reaches_later_subscribers_until_an_empty_one_clears_it(
    broker: Mosquitto, sessions: list[BrokerSession]
) -> None:
    offerer = connected(sessions, address(broker.port), "test-retain-offerer", Inbox())
    offerer.publish("xo/chips/offers/xo/bob/1", b"offer", SECONDS, retain=True)
    early = Inbox()
    look = BrokerSession(address(broker.port), "test-retain-look", early, persistent=False)
    sessions.append(look)
    look.connect(SECONDS)
    look.subscribe("xo/chips/offers/#", SECONDS)
    assert early.take(1) == [("xo/chips/offers/xo/bob/1", b"offer")]
    offerer.publish("xo/chips/offers/xo/bob/1", b"", SECONDS, retain=True)
    late = Inbox()
    connected(sessions, address(broker.port), "test-retain-late", late).subscribe("xo/chips/offers/#", SECONDS)
    assert late.empty_after(0.3)


def test_a_subscriber_offline_gets_what_was_sent_meanwhile_when_it_reconnects(
    broker: Mosquitto, sessions: list[BrokerSession]
) -> None:
    first = connected(sessions, address(broker.port), "test-offline-bob", Inbox())
    first.subscribe("xo/chips/c2/bob", SECONDS)
    first.close()
    alice = connected(sessions, address(broker.port), "test-offline-alice", Inbox())
    for turn in range(3):
        alice.publish("xo/chips/c2/bob", f"state {turn}".encode(), SECONDS)
    inbox = Inbox()
    connected(sessions, address(broker.port), "test-offline-bob", inbox)  # same id, no new subscription
    assert [payload for _, payload in inbox.take(3)] == [b"state 0", b"state 1", b"state 2"]


class Holding(Inbox):
    """A receiver that keeps each message before it is done with it: the broker hears of it only when released."""

    def __init__(self) -> None:
        super().__init__()
        self.handled: list[Future[None]] = []

    def __call__(self, topic: str, payload: bytes) -> Future[None]:
        super().__call__(topic, payload)
        handled: Future[None] = Future()
        self.handled.append(handled)
        return handled


def test_a_message_is_acknowledged_only_once_its_receiver_is_done_with_it(
    broker: Mosquitto, sessions: list[BrokerSession]
) -> None:
    holding = Holding()
    bob = connected(sessions, address(broker.port), "test-held-bob", holding)
    bob.subscribe("xo/chips/c4/bob", SECONDS)
    alice = connected(sessions, address(broker.port), "test-held-alice", Inbox())
    alice.publish("xo/chips/c4/bob", b"kept", SECONDS)
    alice.publish("xo/chips/c4/bob", b"lost in a crash", SECONDS)
    assert [payload for _, payload in holding.take(2)] == [b"kept", b"lost in a crash"]
    holding.handled[0].set_result(None)  # written to the store; the second never was
    time.sleep(0.2)  # the PUBACK on its way before the crash
    bob.close()
    again = Inbox()
    connected(sessions, address(broker.port), "test-held-bob", again)  # same id: the broker redelivers
    assert [payload for _, payload in again.take(1)] == [b"lost in a crash"]
    assert again.empty_after(0.5)


def test_a_failing_handler_does_not_stop_the_session(broker: Mosquitto, sessions: list[BrokerSession]) -> None:
    received: queue.Queue[bytes] = queue.Queue()

    def handler(topic: str, payload: bytes) -> None:
        received.put(payload)
        if payload == b"junk":
            raise ValueError("a malformed message")

    bob = BrokerSession(address(broker.port), "test-failing-bob", handler)
    sessions.append(bob)
    bob.connect(SECONDS)
    bob.subscribe("xo/chips/c3/bob", SECONDS)
    alice = connected(sessions, address(broker.port), "test-failing-alice", Inbox())
    alice.publish("xo/chips/c3/bob", b"junk", SECONDS)
    alice.publish("xo/chips/c3/bob", b"good", SECONDS)
    assert [received.get(timeout=SECONDS), received.get(timeout=SECONDS)] == [b"junk", b"good"]
    assert bob.connected


# --- a broker that restarts -----------------------------------------------------------------------------------------


def test_after_a_broker_restart_that_lost_the_session_the_subscriptions_are_made_again(
    tmp_path: Path, sessions: list[BrokerSession]
) -> None:
    # persistence off: the restarted broker knows no session
    with running_mosquitto(tmp_path) as crashing, closed_before_the_broker_stops(sessions):
        inbox = Inbox()
        back = threading.Event()
        bob = BrokerSession(address(crashing.port), "test-restart-bob", inbox, on_reconnect=back.set)
        sessions.append(bob)
        bob.connect(SECONDS)
        bob.subscribe("xo/chips/c7/bob", SECONDS)
        assert not back.is_set()  # the first connection is no reconnection
        crashing.kill()
        crashing.restart()
        assert back.wait(SECONDS * 2), "bob's session never reported its reconnection"
        alice = connected(sessions, address(crashing.port), "test-restart-alice", Inbox())
        for turn in range(5):
            alice.publish("xo/chips/c7/bob", f"after the restart {turn}".encode(), SECONDS)
        assert [payload for _, payload in inbox.take(5)] == [f"after the restart {turn}".encode() for turn in range(5)]


def test_a_session_taken_over_comes_back_subscribed(broker: Mosquitto, sessions: list[BrokerSession]) -> None:
    inbox, back = Inbox(), Reconnections()
    bob = BrokerSession(address(broker.port), "test-takeover-bob", inbox, on_reconnect=back)
    sessions.append(bob)
    bob.connect(SECONDS)
    bob.subscribe("xo/chips/c8/bob", SECONDS)
    taken = time.monotonic()
    hostile = Hostile(broker.port, "test-takeover-bob")
    assert back.next(SECONDS), "bob's session never came back after the takeover"
    assert time.monotonic() - taken < SECONDS / 2  # 0.2 s, then a connection
    hostile.stop()
    alice = connected(sessions, address(broker.port), "test-takeover-alice", Inbox())
    alice.publish("xo/chips/c8/bob", b"after the takeover", SECONDS)
    assert inbox.take(1) == [("xo/chips/c8/bob", b"after the takeover")]


def test_a_session_fought_over_backs_off_and_comes_back_when_the_fight_ends(
    broker: Mosquitto, sessions: list[BrokerSession], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client_broker, "RECONNECT_DELAYS", (0.1, 5.0))  # half the product's: the fight takes half
    inbox, back, said = Inbox(), Reconnections(), list[str]()
    bob = BrokerSession(address(broker.port), "test-fight-bob", inbox, on_reconnect=back, say=said.append)
    sessions.append(bob)
    bob.connect(SECONDS)
    bob.subscribe("xo/chips/c9/bob", SECONDS)
    hostile = Hostile(broker.port, "test-fight-bob", fight=True)
    time.sleep(1.25)  # paho alone comes back every 0.1 s: about 10 times; backing off (0.1, 0.2, 0.4 s...) 3 or 4
    hostile.stop()
    fought = back.count
    assert 1 <= fought <= 5, f"bob came back {fought} times in 1.25 s of a fight"
    told = f"the broker at {bob.address.url} closed this session 3 times in a row soon after it connected: another "
    assert said in ([], [told + "client seems to use its id; taking it back at most every 10 s"]), said  # once at most
    alice = connected(sessions, address(broker.port), "test-fight-alice", Inbox())
    deadline = time.monotonic() + TAKEOVER_DELAY_CAP + SECONDS  # bob may be waiting out his longest delay
    while time.monotonic() < deadline:
        alice.publish("xo/chips/c9/bob", b"after the fight", SECONDS)  # as a player resends its latest state
        with contextlib.suppress(queue.Empty):
            assert inbox.messages.get(timeout=0.5) == ("xo/chips/c9/bob", b"after the fight")
            return
    raise AssertionError("bob's session never came back")


def test_a_session_that_never_gives_up_waits_for_a_broker_absent_at_the_start(
    tmp_path: Path, sessions: list[BrokerSession], monkeypatch: pytest.MonkeyPatch, closed_port: int
) -> None:
    monkeypatch.setattr(client_broker, "RECONNECT_DELAYS", (0.1, 5.0))  # half the product's: half the wait
    port = closed_port  # until mosquitto listens there; nobody else is given it meanwhile
    said: queue.Queue[str] = queue.Queue()
    inbox = Inbox()
    bob = BrokerSession(address(port), "test-patient-bob", inbox, say=said.put)
    sessions.append(bob)
    started = time.monotonic()
    bob.connect(SECONDS)
    bob.subscribe("xo/chips/c11/bob", SECONDS)
    bob.publish("xo/chips/c11/bob", b"queued while away", SECONDS)
    assert time.monotonic() - started < SECONDS / 2, "a session that never gives up waited for an absent broker"
    time.sleep(0.35)  # paho tries again meanwhile (after 0.1 s, then 0.2 s): said once, not each time
    with running_mosquitto(tmp_path, port=port), closed_before_the_broker_stops(sessions):
        assert inbox.take(1) == [("xo/chips/c11/bob", b"queued while away")]  # subscribed, then published
        alice = connected(sessions, address(port), "test-patient-alice", Inbox())
        alice.publish("xo/chips/c11/bob", b"from alice", SECONDS)
        assert inbox.take(1) == [("xo/chips/c11/bob", b"from alice")]
    assert [said.get_nowait() for _ in range(said.qsize())] == [
        f"cannot reach the broker at mqtt://127.0.0.1:{port}: Connection refused; retrying",
        f"connected to the broker at mqtt://127.0.0.1:{port} again",
    ]


def test_a_session_that_never_gives_up_still_refuses_wrong_credentials(tmp_path: Path) -> None:
    with running_mosquitto(tmp_path, users={"alice": "right"}) as guarded:
        wrong = {"XO_BROKER_USERNAME": "alice", "XO_BROKER_PASSWORD": "wrong"}
        said: list[str] = []
        session = BrokerSession(address(guarded.port, environ=wrong), "test-patient-wrong", Inbox(), say=said.append)
        with pytest.raises(BrokerUnreachable, match=r"refused the connection: Not authorized"):
            session.connect(SECONDS)
        assert said == []


# --- failures ---------------------------------------------------------------------------------------------------


def test_nothing_listening_is_unreachable_with_the_reason(closed_port: int) -> None:
    session = BrokerSession(address(closed_port), "test-closed", Inbox())
    with pytest.raises(BrokerUnreachable) as refused:
        session.connect(SECONDS)
    assert refused.value.message == f"cannot reach the broker at mqtt://127.0.0.1:{closed_port}: Connection refused"
    assert refused.value.exit_code == UNAVAILABLE


def test_a_server_that_never_answers_is_unreachable_within_the_timeout() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        session = BrokerSession(address(port), "test-silent", Inbox())
        started = time.monotonic()
        with pytest.raises(BrokerUnreachable, match=r"did not answer within 0.2 s"):
            session.connect(0.2)  # nothing can answer in time, however loaded the machine
        assert time.monotonic() - started < 3


def test_wrong_credentials_are_refused_and_right_ones_accepted(
    tmp_path: Path, sessions: list[BrokerSession]
) -> None:
    with running_mosquitto(tmp_path, users={"alice": "right"}) as guarded, closed_before_the_broker_stops(sessions):
        wrong = {"XO_BROKER_USERNAME": "alice", "XO_BROKER_PASSWORD": "wrong"}
        session = BrokerSession(address(guarded.port, environ=wrong), "test-auth-wrong", Inbox())
        with pytest.raises(BrokerUnreachable, match=r"refused the connection: Not authorized"):
            session.connect(SECONDS)
        right = {"XO_BROKER_USERNAME": "alice", "XO_BROKER_PASSWORD": "right"}
        inbox = Inbox()
        alice = connected(sessions, address(guarded.port, environ=right), "test-auth-right", inbox)
        alice.subscribe("xo/chips/c4/alice", SECONDS)
        alice.publish("xo/chips/c4/alice", b"to myself", SECONDS)
        assert inbox.take(1) == [("xo/chips/c4/alice", b"to myself")]


def documented_acl() -> str:
    """The players' ACL as docs/messaging.md prints it: the code block that starts ``# /etc/mosquitto/acl``."""
    page = (Path(__file__).parents[2] / "docs" / "messaging.md").read_text(encoding="utf-8")
    block = page[page.index("```\n# /etc/mosquitto/acl") + 4 :]
    return block[: block.index("```")]


PLAYERS_ACL = documented_acl()


def test_a_broker_with_accounts_and_an_acl_keeps_each_player_to_their_own_topics(
    tmp_path: Path, sessions: list[BrokerSession]
) -> None:
    alice_key, bob_key = "02" + "a1" * 32, "03" + "b2" * 32
    users = {alice_key: "alice's password", bob_key: "bob's password", "carol": "carol's password"}
    with running_mosquitto(tmp_path, users=users, acl=PLAYERS_ACL) as guarded, closed_before_the_broker_stops(sessions):

        def session_of(user: str, client_id: str, inbox: Inbox) -> BrokerSession:
            environ = {"XO_BROKER_USERNAME": user, "XO_BROKER_PASSWORD": users[user]}
            return connected(sessions, address(guarded.port, environ=environ), client_id, inbox)

        bob_inbox, carol_inbox = Inbox(), Inbox()
        bob = session_of(bob_key, "test-acl-bob", bob_inbox)
        bob.subscribe(f"xo/chips/c10/{bob_key}", SECONDS)
        carol = session_of("carol", "test-acl-carol", carol_inbox)
        for spying in (f"xo/chips/c10/{bob_key}", "xo/chips/#"):
            with contextlib.suppress(BrokerRefused):  # mosquitto 2.0.11 confirms it (and delivers nothing)
                carol.subscribe(spying, SECONDS)
        alice = session_of(alice_key, "test-acl-alice", Inbox())
        alice.publish(f"xo/chips/c10/{bob_key}", b"alice's move", SECONDS)
        assert bob_inbox.take(1) == [(f"xo/chips/c10/{bob_key}", b"alice's move")]
        assert carol_inbox.empty_after(0.2)


def test_under_the_documented_acl_only_its_offerer_can_clear_or_replace_an_offer(
    tmp_path: Path, sessions: list[BrokerSession]
) -> None:
    alice_key, mallory_key = "02" + "a1" * 32, "03" + "c3" * 32
    users = {alice_key: "alice's password", mallory_key: "mallory's password"}
    offer, elsewhere = f"xo/chips/offers/xo/{alice_key}/{'ab' * 32}", f"xo/chips/offers/xo/{mallory_key}/{'cd' * 32}"
    with running_mosquitto(tmp_path, users=users, acl=PLAYERS_ACL) as guarded, closed_before_the_broker_stops(sessions):

        def session_of(user: str, client_id: str, inbox: Inbox) -> BrokerSession:
            environ = {"XO_BROKER_USERNAME": user, "XO_BROKER_PASSWORD": users[user]}
            return connected(sessions, address(guarded.port, environ=environ), client_id, inbox)

        def board() -> dict[str, bytes]:
            """What a reader connecting now is handed: every retained offer."""
            inbox = Inbox()
            reader = session_of(mallory_key, f"test-acl-reader-{time.monotonic_ns()}", inbox)
            reader.subscribe("xo/chips/offers/+/#", SECONDS)
            time.sleep(0.3)  # retained messages come at once on subscribing
            reader.close()
            found = {}
            while not inbox.messages.empty():
                where, payload = inbox.messages.get_nowait()
                found[where] = payload
            return found

        alice_inbox = Inbox()
        alice = session_of(alice_key, "test-acl-offerer", alice_inbox)
        alice.subscribe(offer, SECONDS)  # the offerer follows its own offer
        alice.publish(offer, b"alice's offer", SECONDS, retain=True)
        assert alice_inbox.take(1) == [(offer, b"alice's offer")]
        mallory = session_of(mallory_key, "test-acl-mallory", Inbox())
        for forged in (b"", b"mallory's junk"):
            mallory.publish(offer, forged, SECONDS, retain=True)  # acknowledged at MQTT 3.1.1, and dropped
        mallory.publish(elsewhere, b"mallory's own offer", SECONDS, retain=True)
        assert board() == {offer: b"alice's offer", elsewhere: b"mallory's own offer"}
        assert alice_inbox.empty_after(0.2), "the offerer never heard the stranger's clear: nothing to put back"
        alice.publish(offer, b"", SECONDS, retain=True)  # the offerer withdraws it
        assert board() == {elsewhere: b"mallory's own offer"}


def test_mqtts_checks_the_broker_certificate_against_the_system_store(
    broker: Mosquitto, sessions: list[BrokerSession], monkeypatch: pytest.MonkeyPatch
) -> None:
    untrusted = BrokerSession(address(broker.tls_port, "mqtts"), "test-tls-untrusted", Inbox())
    with pytest.raises(BrokerUnreachable, match=r"cannot reach the broker at mqtts://127.0.0.1:\d+: TLS: "):
        untrusted.connect(SECONDS)
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS_DIR / "localhost-cert.pem"))  # the store OpenSSL reads by default
    inbox = Inbox()
    trusted = connected(sessions, address(broker.tls_port, "mqtts"), "test-tls-trusted", inbox)
    trusted.subscribe("xo/chips/c5/me", SECONDS)
    trusted.publish("xo/chips/c5/me", b"encrypted on the way", SECONDS)
    assert inbox.take(1) == [("xo/chips/c5/me", b"encrypted on the way")]


def test_a_publish_the_broker_never_acknowledges_times_out_in_bounded_time(
    tmp_path: Path, sessions: list[BrokerSession]
) -> None:
    with running_mosquitto(tmp_path) as doomed:
        alice = connected(sessions, address(doomed.port), "test-timeout-alice", Inbox())
        stop(doomed.process)
        started = time.monotonic()
        with pytest.raises(BrokerTimedOut, match=r"did not acknowledge a message within 0.5 s"):
            alice.publish("xo/chips/c6/bob", b"lost?", 0.5)
        assert time.monotonic() - started < 3
        closing = threading.Thread(target=alice.close)
        closing.start()
        closing.join(SECONDS)
        assert not closing.is_alive()


def test_a_broker_slow_to_acknowledge_reads_as_behind_and_a_quick_one_does_not(
    tmp_path: Path, sessions: list[BrokerSession]
) -> None:
    with running_mosquitto(tmp_path) as slow, closed_before_the_broker_stops(sessions):
        alice = connected(sessions, address(slow.port), "test-lag-alice", Inbox())
        for _ in range(5):
            alice.publish("xo/chips/c7/bob", b"quick", SECONDS)
        assert alice.lag < 0.5
        slow.process.send_signal(signal.SIGSTOP)  # a broker with a crowd's messages queued: it answers, later
        try:
            publishing = threading.Thread(target=alice.publish, args=("xo/chips/c7/bob", b"waits", SECONDS))
            publishing.start()
            time.sleep(0.8)
            assert alice.lag >= 0.7  # the message still waiting counts as it ages
        finally:
            slow.process.send_signal(signal.SIGCONT)
        publishing.join(SECONDS)
        assert not publishing.is_alive() and alice.lag >= 0.15  # its time weighs in the smoothed figure


# --- the --broker flag --------------------------------------------------------------------------------------------


def parser() -> CommandParser:
    return CommandParser(prog="chips", parents=[broker_flags()])


def test_the_broker_flag_defaults_to_the_local_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XO_BROKER", raising=False)
    assert parser().parse_args([]).broker == BrokerAddress("mqtt", "127.0.0.1", 1883)


def test_the_broker_flag_beats_the_environment_which_beats_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XO_BROKER", "mqtts://env.example")
    monkeypatch.setenv("XO_BROKER_USERNAME", "carol")
    assert parser().parse_args([]).broker == BrokerAddress("mqtts", "env.example", 8883, "carol")
    assert parser().parse_args(["--broker", "mqtt://flag.example:1999"]).broker.url == "mqtt://flag.example:1999"


def test_a_malformed_broker_flag_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        parser().parse_args(["--broker", "http://h"])
    assert exited.value.code == 2
    assert capsys.readouterr().err == (
        "chips: error: argument --broker: invalid broker URL 'http://h': expected mqtt://HOST:PORT or "
        "mqtts://HOST:PORT (see 'chips --help')\n"
    )
