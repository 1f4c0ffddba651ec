"""The message transport between players: one MQTT connection to a broker, on paho-mqtt.

Players exchange signed messages through a publish/subscribe broker they do not trust
(it can drop or delay a message, never forge one: receivers check every signature).
A :class:`BrokerSession` keeps a persistent session (clean session off, a stable client
id) and uses QoS 1 both ways, so what was published to a player while they were offline
is delivered when they reconnect. A broker that lost the session (restarted without
persistence) or a client that took it over cannot silence a player: the session remembers its
subscriptions, makes them again on every reconnection, and tells its owner (``on_reconnect``)
so it can publish its latest state again. Payloads are opaque bytes: this layer knows nothing of
games or channels. Every wait is bounded by the caller's timeout; every failure is one of
the :class:`BrokerError` lines a command prints as is.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field

from paho.mqtt import client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.reasoncodes import ReasonCode

from client_core.arguments import BROKER_ENV, DEFAULT_BROKER
from client_core.broker_lag import BrokerLag
from client_core.errors import Unavailable
from xo_core.signing import Signer
from xo_core.text import quoted

USERNAME_ENV = "XO_BROKER_USERNAME"
PASSWORD_ENV = "XO_BROKER_PASSWORD"
DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}
KEEPALIVE_SECONDS = 30
"""How often an idle connection is checked, so a silently dead broker is noticed within about 1.5 times this."""
RECONNECT_DELAYS = (0.2, 5.0)
"""paho reconnects on its own after a lost connection, backing off from the first delay to the second."""
STABLE_SECONDS = 10.0
"""A connection lost sooner than this after it was made counts as a takeover (another client with this id)."""
TAKEOVER_DELAY_CAP = 10.0
"""Each takeover in a row doubles the delay before taking the session back, up to this: a fight for the
session with another client costs one reconnection per this many seconds at most, and the session is back
within it once the fight stops."""
QUEUED_LIMIT = 1000
"""Messages a session that never gives up keeps for a broker that is away; beyond, a publish is dropped (its
owner republishes its latest state on the reconnection)."""
TAKEOVERS_TOLD = 3
"""Takeovers in a row after which the session says that another client seems to use its id."""

__all__ = [
    "BROKER_ENV",
    "DEFAULT_BROKER",
    "BrokerAddress",
    "BrokerError",
    "BrokerRefused",
    "BrokerSession",
    "BrokerTimedOut",
    "BrokerUnreachable",
    "private_client_id",
]

_log = logging.getLogger(__name__)


class BrokerError(Unavailable):
    """The broker could not do what was asked; the line says which broker and why."""


class BrokerUnreachable(BrokerError):
    """No session with the broker: it cannot be reached, does not answer MQTT, or refused the connection."""


class BrokerRefused(BrokerError):
    """The broker is connected but refused a subscription."""


class BrokerTimedOut(BrokerError):
    """The broker did not acknowledge in time; a publish may still be delivered later (at least once)."""


@dataclass(frozen=True)
class BrokerAddress:
    """Where the broker is: parsed from --broker / $XO_BROKER (mqtt://host:port or mqtts://host:port;
    default mqtt://127.0.0.1:1883); user and password from $XO_BROKER_USERNAME / $XO_BROKER_PASSWORD.

    Credentials never come from the URL, so they cannot leak through a process list or a log line.
    """

    scheme: str
    host: str
    port: int
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @classmethod
    def parse(cls, url: str, environ: Mapping[str, str] = os.environ) -> BrokerAddress:
        """``mqtt://host[:port]`` or ``mqtts://host[:port]``; a ValueError says what is wrong with ``url``."""
        shown = quoted(url, 80)
        try:
            parts = urllib.parse.urlsplit(url.strip())
            port = parts.port
        except ValueError as error:
            raise ValueError(f"invalid broker URL {shown}: {error}") from None
        scheme = parts.scheme.lower()
        if scheme not in DEFAULT_PORTS:
            raise ValueError(f"invalid broker URL {shown}: expected mqtt://HOST:PORT or mqtts://HOST:PORT")
        if parts.username is not None or parts.password is not None:
            raise ValueError(
                f"invalid broker URL {shown}: give the user and password in ${USERNAME_ENV} and ${PASSWORD_ENV}, "
                "not in the URL"
            )
        if not parts.hostname:
            raise ValueError(f"invalid broker URL {shown}: no host")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise ValueError(f"invalid broker URL {shown}: a broker URL has no path, query or fragment")
        if port == 0:
            raise ValueError(f"invalid broker URL {shown}: port 0 is not a broker's port")
        username = environ.get(USERNAME_ENV) or None
        password = environ.get(PASSWORD_ENV) or None
        if password is not None and username is None:
            raise ValueError(f"${PASSWORD_ENV} is set but ${USERNAME_ENV} is not")
        return cls(scheme, parts.hostname, port or DEFAULT_PORTS[scheme], username, password)

    @property
    def url(self) -> str:
        """The address as a URL, without credentials: what error lines and banners show."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"

    @property
    def tls(self) -> bool:
        """Whether the connection is encrypted (``mqtts://``)."""
        return self.scheme == "mqtts"


class BrokerSession:
    """One MQTT connection (paho-mqtt) with a persistent session (clean session off, a stable client id)
    and QoS 1 both ways, so what was sent while a player was offline reaches them when they come back.
    ``persistent=False`` asks for a clean session instead, for a look that leaves nothing behind on the
    broker (``chips offers`` reading the retained offers).

    ``on_message(topic, payload)`` runs on paho's network thread: a receiver hands the message to its own
    queue and returns quickly. It may return a :class:`~concurrent.futures.Future`: the broker is then
    acknowledged (PUBACK) only once that future is done, so a receiver that must keep a message durably
    first (a signed state) acknowledges it after the write, and a message lost to a crash before it is
    redelivered. Otherwise the broker is acknowledged once it returns; an exception it raises is logged
    and the message still acknowledged, so one bad message cannot stop the session.

    After a lost connection paho reconnects on its own, and the session subscribes again to every topic
    it subscribed to, whatever the CONNACK's ``session_present`` says: a broker restarted without
    persistence, or a client that took the session over with a clean session, left no subscription,
    and subscribing again to a topic already subscribed is harmless. Once those subscriptions are
    confirmed, ``on_reconnect()`` runs (on paho's thread, not after the first connection), so its owner
    can publish again what may have been lost meanwhile.

    With ``say``, the session never gives up on an absent broker, for a program a player leaves running:
    ``connect`` returns even when the broker cannot be reached (paho keeps trying, backing off from 0.2 s
    to 5 s), ``subscribe`` remembers a topic to subscribe to on the connection, ``publish`` queues the
    message for it, and neither waits for a broker that is away; only a refusal (bad credentials, a
    subscription the broker denies) still raises. ``say`` gets one line when the broker cannot be
    reached ("cannot reach the broker at URL: why; retrying"), and one when it is back.
    """

    def __init__(
        self,
        address: BrokerAddress,
        client_id: str,
        on_message: Callable[[str, bytes], Future[None] | None],
        *,
        on_reconnect: Callable[[], None] | None = None,
        persistent: bool = True,
        say: Callable[[str], None] | None = None,
    ) -> None:
        if not client_id or len(client_id.encode()) > 65535:
            raise ValueError("a broker client id must be 1 to 65535 bytes long")
        self.address = address
        self.client_id = client_id
        self._on_message = on_message
        self._on_reconnect = on_reconnect
        self._say = say
        self._away_said = False
        self._opened = False
        self._lock = threading.Lock()
        self._topics: list[str] = []
        self._connections = 0
        self._connected_at: float | None = None
        self._takeovers = 0
        self._resubscriptions: set[int] = set()
        self._connack = threading.Event()
        self._connect_failure: str | None = None
        self._connected = False
        self._acks: dict[int, threading.Event] = {}
        self._early_acks: set[int] = set()
        self._lag = BrokerLag()
        self._subacks: dict[int, list[ReasonCode]] = {}
        self._suback = threading.Condition(self._lock)
        self._started = False
        self._client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=not persistent,
            protocol=mqtt.MQTTv311,
            manual_ack=True,
        )
        if address.username is not None:
            self._client.username_pw_set(address.username, address.password)
        if address.tls:
            self._client.tls_set_context(ssl.create_default_context())
        self._client.reconnect_delay_set(*RECONNECT_DELAYS)
        if say is not None:
            self._client.max_queued_messages_set(QUEUED_LIMIT)
            self._client.on_connect_fail = self._handle_connect_fail
        self._client.on_socket_open = self._handle_socket_open
        self._client.on_connect = self._handle_connect
        self._client.on_disconnect = self._handle_disconnect
        self._client.on_message = self._handle_message
        self._client.on_publish = self._handle_publish
        self._client.on_subscribe = self._handle_subscribe

    @property
    def connected(self) -> bool:
        """Whether the session is connected now (paho reconnects on its own when it is not)."""
        return self._connected

    @property
    def lag(self) -> float:
        """How far behind the broker is now (seconds): what acknowledging a message takes it, smoothed
        (:class:`client_core.broker_lag.BrokerLag`)."""
        with self._lock:
            return self._lag.seconds(time.monotonic())

    def connect(self, timeout: float) -> None:
        """Open the session, waiting at most ``timeout`` seconds for the broker's answer; BrokerUnreachable if none."""
        if self._started:
            raise RuntimeError("connect() was already called on this session")
        deadline = time.monotonic() + timeout
        self._client.connect_timeout = max(timeout, 0.01)
        try:
            self._client.connect(self.address.host, self.address.port, keepalive=KEEPALIVE_SECONDS)
        except (OSError, ValueError) as error:
            unreachable = f"cannot reach the broker at {self.address.url}: {_reason(error)}"
            if self._say is None or isinstance(error, ValueError):
                raise BrokerUnreachable(unreachable) from None
            self._away(unreachable)
            self._client.connect_async(self.address.host, self.address.port, keepalive=KEEPALIVE_SECONDS)
            self._started = self._opened = True
            self._client.loop_start()  # paho's thread keeps trying
            return
        self._started = True
        self._client.loop_start()
        if not self._connack.wait(max(deadline - time.monotonic(), 0)):
            if self._say is not None:
                self._opened = True
                self._away(f"the broker at {self.address.url} did not answer within {timeout:g} s")
                return
            self.close()
            raise BrokerUnreachable(f"the broker at {self.address.url} did not answer within {timeout:g} s")
        if self._connect_failure is not None:
            self.close()
            raise BrokerUnreachable(f"the broker at {self.address.url} refused the connection: {self._connect_failure}")
        self._opened = True

    def subscribe(self, topic: str, timeout: float) -> None:
        """Subscribe at QoS 1; the subscription outlives disconnections, and is made again on every reconnection."""
        with self._lock:
            if topic not in self._topics:
                self._topics.append(topic)
        result, mid = self._client.subscribe(topic, qos=1)
        if result == MQTTErrorCode.MQTT_ERR_NO_CONN and self._say is not None:
            return  # made on the connection, with the others
        if result != MQTTErrorCode.MQTT_ERR_SUCCESS or mid is None:
            self._forget(topic)
            raise BrokerUnreachable(f"cannot subscribe on {self.address.url}: {mqtt.error_string(result)}")
        deadline = time.monotonic() + timeout
        with self._suback:
            while mid not in self._subacks:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    if self._say is not None:
                        return  # lost meanwhile: made again on the reconnection
                    self._topics.remove(topic)  # under the lock, which self._suback holds
                    raise BrokerTimedOut(
                        f"the broker at {self.address.url} did not confirm the subscription within {timeout:g} s"
                    )
                self._suback.wait(remaining)
            codes = self._subacks.pop(mid)
        refused = [code for code in codes if code.is_failure]
        if refused:
            self._forget(topic)
            raise BrokerRefused(
                f"the broker at {self.address.url} refused the subscription to {quoted(topic, 80)}: {refused[0]}"
            )

    def _forget(self, topic: str) -> None:
        """A subscription the caller was told failed is not made again on a reconnection."""
        with self._lock:
            if topic in self._topics:
                self._topics.remove(topic)

    def publish(self, topic: str, payload: bytes, timeout: float, *, retain: bool = False) -> None:
        """Publish at QoS 1 and return once the broker acknowledged (PUBACK); BrokerTimedOut otherwise.

        While disconnected, the message waits in paho's queue and goes out on reconnection: a
        timeout means "not confirmed yet", so the message may still arrive (receivers drop duplicates).
        With ``retain`` the broker keeps the message for whoever subscribes later (an open offer), until
        an empty retained message on the same topic clears it.
        """
        started = time.monotonic()
        info = self._client.publish(topic, payload, qos=1, retain=retain)
        if self._say is not None and info.rc in (MQTTErrorCode.MQTT_ERR_NO_CONN, MQTTErrorCode.MQTT_ERR_QUEUE_SIZE):
            return  # queued for the connection (or, beyond QUEUED_LIMIT, dropped): nothing to wait for meanwhile
        if info.rc not in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_NO_CONN):
            raise BrokerError(f"cannot publish on {self.address.url}: {mqtt.error_string(info.rc)}")
        acked = threading.Event()
        with self._lock:
            if info.mid in self._early_acks:
                self._early_acks.discard(info.mid)
                self._lag.took(time.monotonic() - started, time.monotonic())
                return
            self._acks[info.mid] = acked
            self._lag.sent(info.mid, started)
        if not acked.wait(timeout):
            with self._lock:
                self._lag.gave_up(info.mid, time.monotonic())
                if self._say is not None:
                    self._acks.pop(info.mid, None)
            if self._say is not None:
                return  # still queued in paho: it goes out on the reconnection
            state = "" if self._connected else " (disconnected; it is queued for the reconnection)"
            raise BrokerTimedOut(
                f"the broker at {self.address.url} did not acknowledge a message within {timeout:g} s{state}"
            )

    def close(self) -> None:
        """Disconnect and stop the network thread. The broker keeps the session for the next connection."""
        if not self._started:
            return
        self._started = False
        self._client.disconnect()
        self._client.loop_stop()
        self._connected = False

    def _handle_socket_open(self, client: mqtt.Client, userdata: object, sock: object) -> None:
        """No Nagle delay: a move is one small packet, and held back for a delayed ACK it would wait 40 ms."""
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _handle_connect(
        self,
        client: mqtt.Client,
        userdata: object,
        flags: mqtt.ConnectFlags,
        reason: ReasonCode,
        properties: object,
    ) -> None:
        if reason.is_failure:
            self._connect_failure = str(reason)
            self._connack.set()
            if self._opened and self._say is not None:  # at connect(), the refusal is raised instead
                self._away(f"the broker at {self.address.url} refused the connection: {reason}")
            return
        self._connected = True
        if self._away_said and self._say is not None:
            self._away_said = False
            self._tell(f"connected to the broker at {self.address.url} again")
        _log.debug("connected to %s (session present: %s)", self.address.url, flags.session_present)
        with self._lock:
            self._connections += 1
            self._connected_at = time.monotonic()
            self._resubscriptions.clear()  # an answer to one of them died with the previous connection
            reconnected = self._connections > 1
            topics = list(self._topics)
        self._connack.set()
        if topics:
            result, mid = client.subscribe([(topic, 1) for topic in topics])
            if result == MQTTErrorCode.MQTT_ERR_SUCCESS and mid is not None:
                with self._lock:
                    self._resubscriptions.add(mid)
                return  # on_reconnect once the broker confirmed them
            _log.warning("cannot subscribe again on %s: %s", self.address.url, mqtt.error_string(result))
        if reconnected:
            self._reconnected()

    def _handle_connect_fail(self, client: mqtt.Client, userdata: object) -> None:
        self._away(f"cannot reach the broker at {self.address.url}")

    def _away(self, why: str) -> None:
        """Say once per absence of the broker that it is away and that the session keeps trying."""
        if self._away_said:
            return
        self._away_said = True
        self._tell(f"{why}; retrying")

    def _tell(self, line: str) -> None:
        if self._say is None:
            return
        try:
            self._say(line)
        except Exception:
            _log.exception("saying a line about the broker failed")

    def _reconnected(self) -> None:
        if self._on_reconnect is None:
            return
        try:
            self._on_reconnect()
        except Exception:
            _log.exception("the reconnection handler failed")

    def _handle_disconnect(
        self,
        client: mqtt.Client,
        userdata: object,
        flags: mqtt.DisconnectFlags,
        reason: ReasonCode,
        properties: object,
    ) -> None:
        self._connected = False
        _log.debug("disconnected from %s: %s", self.address.url, reason)
        with self._lock:
            since, self._connected_at = self._connected_at, None
            if since is None or not self._started:  # no connection was lost (a refusal, or close())
                return
            in_a_row = self._connections > 1 and time.monotonic() - since < STABLE_SECONDS  # not the first's loss
            self._takeovers = self._takeovers + 1 if in_a_row else 0
            takeovers = self._takeovers
        delay = min(RECONNECT_DELAYS[0] * 2**takeovers, TAKEOVER_DELAY_CAP)
        client.reconnect_delay_set(delay, max(delay, RECONNECT_DELAYS[1]))
        if takeovers == TAKEOVERS_TOLD:
            line = (f"the broker at {self.address.url} closed this session {takeovers} times in a row soon after it "
                    f"connected: another client seems to use its id; taking it back at most every "
                    f"{TAKEOVER_DELAY_CAP:g} s")  # fmt: skip
            if self._say is None:
                _log.warning("%s", line)
            else:
                self._tell(line)

    def _handle_message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        handled: Future[None] | None = None
        try:
            handled = self._on_message(message.topic, bytes(message.payload))
        except Exception:
            _log.exception("the message handler failed on a message of %s", quoted(message.topic, 80))
        mid, qos = message.mid, message.qos
        if handled is None:
            client.ack(mid, qos)
        else:
            handled.add_done_callback(lambda _done: client.ack(mid, qos))

    def _handle_publish(
        self, client: mqtt.Client, userdata: object, mid: int, reason: ReasonCode, properties: object
    ) -> None:
        with self._lock:
            acked = self._acks.pop(mid, None)
            if acked is None:
                self._early_acks.add(mid)
            else:
                self._lag.acknowledged(mid, time.monotonic())
                acked.set()

    def _handle_subscribe(
        self, client: mqtt.Client, userdata: object, mid: int, codes: list[ReasonCode], properties: object
    ) -> None:
        with self._suback:
            again = mid in self._resubscriptions
            if again:
                self._resubscriptions.discard(mid)
                reconnected = self._connections > 1
            else:
                self._subacks[mid] = codes
                self._suback.notify_all()
        if again:
            for code in codes:
                if code.is_failure:
                    _log.warning("the broker at %s refused a subscription made again: %s", self.address.url, code)
            if reconnected:
                self._reconnected()


def private_client_id(signer: Signer, purpose: str, scope: str) -> str:
    """``xo-<purpose>-<32 hex digits>``: a client id only the holder of ``signer``'s private key can name.

    An MQTT broker hands a session to whoever connects with its client id, so an id made of public
    facts (a key, a channel) lets anyone kick a player off. This one is an HMAC-SHA256 of ``purpose`` and
    ``scope`` keyed with the private key: the same on every run and in every program of that player
    (the persistent session is found again after a restart), different for every scope, and 128 bits
    nobody else can compute. ``purpose`` stays readable, for a broker operator's logs.
    """
    message = f"xo MQTT client id\n{purpose}\n{scope}".encode()
    digest = hmac.new(bytes.fromhex(signer.private_key_hex), message, hashlib.sha256).hexdigest()
    return f"xo-{purpose}-{digest[:32]}"


def _reason(error: BaseException) -> str:
    """An OS or TLS error as a short phrase ("Connection refused"), not its repr."""
    if isinstance(error, ssl.SSLError) and error.reason:
        return f"TLS: {error.reason}"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__
