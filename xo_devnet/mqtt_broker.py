"""xo-devnet's embedded MQTT broker (amqtt), through which players exchange their off-chain messages.

xo-devnet owns the listening socket (so port 0 works and the bound port is known, as for the
REST API) and runs this broker in a process of its own on it (``xo_devnet.broker_process``), which
hands each connection to an amqtt broker configured with one "external" listener. Every client
counts as a named one: amqtt keeps what arrives for an offline persistent session only for clients
that are not anonymous, and a local development broker
on loopback has no accounts to check. Known limit of amqtt 0.12 (Yakifo/amqtt#401): a
message in flight to a client that disconnects before acknowledging it is not redelivered;
messages published while it is offline are, without holding up the client's own packets (amqtt 0.12
alone read none until each was acknowledged). Clients resend what was not answered. A takeover
of a connected client's session ends that client's connection, as MQTT requires, so it knows to
come back (amqtt 0.12 alone left it connected and deaf): see :class:`_Broker`. Retained messages go
to a subscription that matches them, when it is made, as MQTT requires: amqtt 0.12 alone also handed
every connecting client those matching anyone's subscription, and a client subscribing meanwhile ended
that connection (its SUBSCRIBE never confirmed), which many players connecting at once met.

Anyone on the machine can connect and send junk, and amqtt writes a warning or two for each
such connection: its warnings and errors go through a rate limiter (``xo_core.log_limits``,
as the REST API's do), one line per logger and level per 10 s and then the count, so a flood
of connections cannot flood the log. Its lines below WARNING (seen with ``-vv``) pass as they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import socket
from collections.abc import Sequence

from amqtt.adapters import StreamReaderAdapter, StreamWriterAdapter
from amqtt.broker import Broker
from amqtt.plugins.base import BaseAuthPlugin
from amqtt.session import Session

from xo_core.log_limits import LogLimiter
from xo_core.text import printable

LOGGER = logging.getLogger(__name__)
LISTENER = "default"
STOP_TIMEOUT_SECONDS = 4.0
"""How long a stop waits for the broker's sessions and connections to close, in all: less than the grace its
process gets after SIGTERM (``xo_devnet.sidecar.STOP_GRACE_SECONDS``), so that it exits on its own."""
_CONNECTING: contextvars.ContextVar[bool] = contextvars.ContextVar("connecting", default=False)
"""Set in a connection's own task from its CONNECT until its packets are read: no retained message goes out then."""


class OpenAccess(BaseAuthPlugin):
    """Admit every client as a named one, so persistent sessions keep what arrives while they are away."""

    async def authenticate(self, *, session: Session) -> bool:
        """Admit every client: the devnet's broker has no accounts; a client is known by its client id."""
        return True


class _Broker(Broker):
    """amqtt's broker, with the takeover of a connected client's session made whole, as MQTT 3.1.1 requires
    (3.1.4-2) and mosquitto does; amqtt 0.12 leaves the session's client deaf for good, never told to reconnect:

    - a CONNECT with a clean session and a connected client's id only dropped the old session's
      subscriptions: the old client's connection is ended too;
    - a CONNECT without one hands the same session object to the newcomer, and the old connection's end then
      marked it disconnected under the newcomer: that end now leaves the session to its new connection.
    """

    def __init__(self, config: dict[str, object]) -> None:
        super().__init__(config)
        self._taken_over: set[int] = set()
        self._deliveries: set[asyncio.Future[None]] = set()

    async def _publish_session_retained_messages(self, session: Session) -> None:
        """What waited for a persistent session while it was away goes out beside the client's packets, not before
        them: amqtt 0.12 waits (up to 5 s) for each acknowledgment before it reads the client's next packet, so a
        client that acknowledges a message only once it kept it, after its SUBSCRIBE is confirmed (a chips match
        resumed), was held 5 s. Mosquitto holds nobody either."""
        delivery = asyncio.ensure_future(super()._publish_session_retained_messages(session))
        self._deliveries.add(delivery)
        delivery.add_done_callback(self._deliveries.discard)

    async def shutdown(self) -> None:
        """Stop, with the deliveries to returning sessions still waiting for an acknowledgment given up."""
        for delivery in list(self._deliveries):
            delivery.cancel()
        await super().shutdown()

    async def _delete_session(self, client_id: str) -> None:
        found = self._sessions.get(client_id)
        if found is not None and found[0].transitions.is_connected():
            await found[1].handle_connection_closed()
            await found[1].stop()
        await super()._delete_session(client_id)

    async def _handle_client_session(self, reader: object, writer: object, client_session: Session,
                                     *rest: object) -> None:  # fmt: skip
        found = self._sessions.get(client_session.client_id or "")
        if found is not None and found[0] is client_session and client_session.transitions.is_connected():
            self._taken_over.add(id(found[1]))  # amqtt is about to end that connection and hand the session over
        _CONNECTING.set(True)
        await super()._handle_client_session(reader, writer, client_session, *rest)  # type: ignore[arg-type]

    async def _client_message_loop(self, client_session: Session, handler: object) -> None:
        _CONNECTING.set(False)
        await super()._client_message_loop(client_session, handler)  # type: ignore[arg-type]

    async def _publish_retained_messages_for_subscription(self, subscription: tuple[str, int],
                                                          session: Session) -> None:  # fmt: skip
        """The retained messages a new subscription matches; none at a CONNECT, where amqtt 0.12 walks every
        subscription on the broker (anyone's) and, while it waits on one, another client's SUBSCRIBE changes
        what it walks: that ended the connecting client's connection. A client that comes back subscribes
        again, and is handed what it matches then (MQTT 3.1.1, 3.3.1-6)."""
        if _CONNECTING.get():
            return
        await super()._publish_retained_messages_for_subscription(subscription, session)

    async def _handle_disconnect(self, client_session: Session, handler: object, disconnect_waiter: object) -> None:
        if id(handler) in self._taken_over:
            self._taken_over.discard(id(handler))
            await self._stop_handler(handler)  # type: ignore[arg-type]
            return
        await super()._handle_disconnect(client_session, handler, disconnect_waiter)  # type: ignore[arg-type]


CONFIG = {
    "listeners": {LISTENER: {"type": "external"}},
    "plugins": {f"{OpenAccess.__module__}.{OpenAccess.__qualname__}": {}},
}


class _LimitedLines(logging.Handler):
    """Takes every line of amqtt's loggers and writes its warnings and errors through ``limiter``."""

    def __init__(self, limiter: LogLimiter) -> None:
        super().__init__()
        self.limiter = limiter

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno < logging.WARNING:
            logging.getLogger().handle(record)
            return
        error = record.exc_info[1] if record.exc_info else None
        key = ("amqtt", record.name, record.levelno)  # a fixed set: amqtt's loggers and the levels
        line = printable(record.getMessage(), escape_backslashes=False)  # amqtt's lines quote clients' ids
        self.limiter.log(LOGGER, key, record.levelno, "%s: %s", record.name, line, exc_info=error)


LOG_LIMITER = LogLimiter()
"""The broker's client-repeatable lines, amqtt's and ours, one line per condition per interval."""


def _limit_amqtt_lines() -> None:
    """Route amqtt's lines through LOG_LIMITER, once per process (every broker of the process shares them)."""
    amqtt_logger = logging.getLogger("amqtt")
    if not any(isinstance(handler, _LimitedLines) for handler in amqtt_logger.handlers):
        amqtt_logger.addHandler(_LimitedLines(LOG_LIMITER))
        amqtt_logger.propagate = False


class EmbeddedBroker:
    """An amqtt broker on ``host:port`` (port 0: a free one) for as long as the devnet runs; on ``listeners`` instead,
    when given: sockets bound (and listening) already, as xo-devnet hands them to the broker's process. ``backlog``:
    the connections the kernel queues before the broker accepts them."""

    def __init__(self, host: str, port: int, listeners: Sequence[socket.socket] = (), backlog: int = 100) -> None:
        self.host = host
        self.requested_port = port
        self._listeners = list(listeners)
        self._backlog = backlog
        self._broker: Broker | None = None
        self._servers: list[asyncio.Server] = []
        self._connections: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        """The bound port (the requested one, or the one picked for port 0)."""
        if not self._servers:
            raise RuntimeError("the broker is not started")
        return int(self._servers[0].sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        """The ``mqtt://`` URL clients connect to (an IPv6 host in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"mqtt://{host}:{self.port}"

    @property
    def broker(self) -> Broker:
        """The amqtt broker itself, for tests that look at its sessions."""
        if self._broker is None:
            raise RuntimeError("the broker is not started")
        return self._broker

    async def start(self) -> None:
        """Bind, then start amqtt; OSError if the address cannot be bound (a port in use, say)."""
        _limit_amqtt_lines()
        if self._listeners:
            for listener in self._listeners:
                self._servers.append(await asyncio.start_server(self._serve, sock=listener, backlog=self._backlog))
        else:
            self._servers.append(
                await asyncio.start_server(self._serve, self.host, self.requested_port, backlog=self._backlog)
            )
        self._broker = _Broker(CONFIG)
        try:
            await self._broker.start()
        except BaseException:
            self._close_servers()
            raise

    async def stop(self) -> None:
        """Stop listening, end every session and connection, within STOP_TIMEOUT_SECONDS in all."""
        deadline = asyncio.get_running_loop().time() + STOP_TIMEOUT_SECONDS
        self._close_servers()
        for connection in list(self._connections):
            connection.cancel()
        if self._connections:
            await asyncio.wait(self._connections, timeout=STOP_TIMEOUT_SECONDS / 2)
        if self._broker is not None:
            with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
                await asyncio.wait_for(self._broker.shutdown(), max(0.0, deadline - asyncio.get_running_loop().time()))
        self._broker = None
        LOG_LIMITER.flush()

    def _close_servers(self) -> None:
        """Stop accepting: this process's copies of the listening sockets close (xo-devnet keeps its own)."""
        for server in self._servers:
            server.close()
        self._servers.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One client connection, handed to amqtt; whatever ends it, the socket is closed."""
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        try:
            if self._broker is not None:
                stream = StreamReaderAdapter(reader), StreamWriterAdapter(writer)
                await self._broker.external_connected(*stream, LISTENER)
        except asyncio.CancelledError:
            pass
        except Exception as error:
            LOG_LIMITER.log(LOGGER, "connection error", logging.WARNING, "an MQTT connection ended on an error",
                            exc_info=error)  # fmt: skip
        finally:
            writer.close()
            if task is not None:
                self._connections.discard(task)
