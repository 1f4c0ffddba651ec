"""The transaction processor: connects to a validator, registers its handlers, serves, reconnects, stops cleanly.

Two threads. The event loop owns the connection's life: connect, watch the socket
monitor, register, notice the validator going away, back off, reconnect, unregister
on SIGINT/SIGTERM. The :mod:`handler thread <tp_runtime.scheduler>` owns the hot
path: it reads every frame, runs handlers and sends their requests and responses.
If a handler blocks outside its context calls, the loop reads the socket itself
meanwhile and answers pings, so a busy handler never makes the processor look dead.
"""

import asyncio
import contextlib
import functools
import logging
import signal
import threading
from pathlib import Path

import zmq
from google.protobuf.message import DecodeError

from tp_runtime.backoff import Backoff
from tp_runtime.connection import ValidatorConnection, send_queue_limit
from tp_runtime.envelope import correlation_ids, envelope, message_type_name
from tp_runtime.errors import ProcessorFailed, ValidatorConnectionLost
from tp_runtime.handlers import Handler, Handlers
from tp_runtime.ready_file import ReadyFile
from tp_runtime.registration import register, unregister
from tp_runtime.replies import LoopSink, PendingReplies
from tp_runtime.scheduler import HandlerScheduler
from tp_runtime.signals import stop_signals
from tp_runtime.tallies import ProcessorTallies
from tp_runtime.transactions import WIRE_LOGGER, ProcessJob, TransactionRunner
from xo_core.protobuf.validator_pb2 import Message

LOGGER = logging.getLogger(__name__)
NOT_CONNECTED_WARNING_EVERY = 10.0
# How often the loop checks for a handler that blocks the handler thread, and how long counts as blocking.
STUCK_CHECK_EVERY = 0.05
HANDLER_THREAD_STOP_WAIT = 1.0


class _Session:
    """One connection to the validator and what the loop has learnt about it."""

    def __init__(self) -> None:
        self.connection: ValidatorConnection
        self.ready = asyncio.Event()
        self.lost = asyncio.Event()
        self.monitored = False


class TransactionProcessor:
    """Serves SDK-style transaction handlers to a Sawtooth validator over its component endpoint.

    ``start()`` blocks until SIGINT/SIGTERM or :meth:`stop`; it raises
    :class:`RegistrationRejected` if the validator refuses a family and
    :class:`ProcessorFailed` if the processor itself breaks. Timeouts are in
    seconds: ``request_timeout`` bounds each state/event/receipt call a handler makes
    without a timeout of its own; after a stop request the processor waits up to
    ``unregister_timeout`` for the validator's answer and then up to
    ``shutdown_grace`` for transactions in flight. ``ready_file``, if given, exists
    exactly while every handler is registered with a validator, so that a container
    health check or a supervisor can tell "serving" from merely "running".
    ``tallies``, if given, count what the processor does (see :mod:`tp_runtime.metrics`).
    """

    def __init__(
        self,
        url: str,
        *,
        max_occupancy: int = 10,
        request_timeout: float = 10.0,
        register_timeout: float = 10.0,
        unregister_timeout: float = 1.0,
        shutdown_grace: float = 2.0,
        reconnect_first: float = 0.1,
        reconnect_max: float = 5.0,
        ready_file: Path | None = None,
        tallies: ProcessorTallies | None = None,
    ) -> None:
        if max_occupancy < 1:
            raise ValueError(f"max_occupancy must be at least 1, got {max_occupancy}")
        self.url = url
        self._max_occupancy = max_occupancy
        self._request_timeout = request_timeout
        self._register_timeout = register_timeout
        self._unregister_timeout = unregister_timeout
        self._shutdown_grace = shutdown_grace
        self._backoff = Backoff(reconnect_first, reconnect_max)
        self._ready_file = ReadyFile(ready_file)
        self._tallies = tallies
        self._handlers = Handlers()
        self._pending = PendingReplies()
        self._next_id = correlation_ids()
        self._stop_requested = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = asyncio.Event()
        self._abandon = asyncio.Event()
        self._scheduler: HandlerScheduler[ProcessJob] | None = None
        self._connections: list[ValidatorConnection] = []
        self._crashed = False

    def add_handler(self, handler: Handler) -> None:
        """Serve ``handler`` (SDK ``TransactionHandler`` interface) for each of its family versions."""
        self._handlers.add(handler)

    @property
    def family_versions(self) -> list[str]:
        """Every family version served, once each, in the order the handlers were added."""
        return list(dict.fromkeys(self._handlers.versions()))

    @property
    def in_flight(self) -> int:
        """Transactions received and not yet answered (0 while not running); safe from any thread."""
        scheduler = self._scheduler
        return scheduler.in_flight if scheduler is not None else 0

    def start(self) -> None:
        """Run until stopped; the blocking entry point for a command's ``main``."""
        asyncio.run(self.run())

    def stop(self) -> None:
        """Ask a running processor to unregister and exit; safe from any thread, and before it starts."""
        self._stop_requested.set()
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already finished
                loop.call_soon_threadsafe(self._request_stop)

    async def run(self) -> None:
        """The processor's whole life, as a coroutine."""
        if not self._handlers:
            raise ValueError("add a handler before starting the processor")
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._stopping = asyncio.Event()
        self._abandon = asyncio.Event()
        if self._stop_requested.is_set():
            self._stopping.set()
        runner = TransactionRunner(
            self._handlers, self._pending, self._next_id, self._request_timeout, self._tallies
        )
        self._scheduler = HandlerScheduler(runner, self._dispatch, self._max_occupancy, self._handler_thread_died)
        zmq_context = zmq.Context()
        self._ready_file.clear()  # left behind by a processor that was killed: this one is not registered yet
        try:
            with stop_signals(loop, self._on_signal):
                await self._serve(zmq_context)
        finally:
            if not self._scheduler.stop(HANDLER_THREAD_STOP_WAIT):
                LOGGER.warning("a handler is still running; leaving it behind")
            for connection in self._connections:
                connection.close()
            zmq_context.destroy(linger=0)  # every socket is closed by now; this only guarantees exit never hangs
            self._loop = None
        if self._crashed:
            raise ProcessorFailed("the handler thread failed")
        LOGGER.info("stopped")

    def _handler_thread_died(self) -> None:
        """Called on the handler thread as it dies: nothing can be processed any more, so stop."""
        self._crashed = True
        self.stop()

    async def _serve(self, zmq_context: zmq.Context) -> None:
        first = True
        while not self._stopping.is_set():
            if not first and self._tallies is not None:
                self._tallies.reconnects += 1
            first = False
            session = self._open(zmq_context)
            try:
                await self._session(session)
            finally:
                self._close(session)
            if self._stopping.is_set():
                return
            delay = self._backoff.next_delay()
            LOGGER.info("reconnecting to the validator at %s in %.1f s", self.url, delay)
            await self._first(self._stopping, timeout=delay)

    async def _session(self, session: _Session) -> None:
        LOGGER.info("connecting to the validator at %s", self.url)
        if not await self._connected(session):
            return
        LOGGER.info("connected to the validator at %s", self.url)
        watchdog = asyncio.ensure_future(self._cover_for_stuck_handlers(session))
        try:
            ask = functools.partial(self._ask, session)
            requests = self._handlers.register_requests(self._max_occupancy)
            if not await register(ask, requests, self.url, self._stopping, self._register_timeout):
                if self._stopping.is_set() and not session.lost.is_set():
                    # stopped while the answers were on their way: the validator may count this processor in
                    await unregister(ask, self.url, self._abandon, self._unregister_timeout)
                return
            LOGGER.info(
                "registered %s with the validator at %s (max occupancy %d)",
                self._handlers.describe(),
                self.url,
                self._max_occupancy,
            )
            self._backoff.reset()
            self._ready_file.mark(self.url)
            if self._tallies is not None:
                self._tallies.registrations += 1
                self._tallies.registered = True
            await self._first(session.lost, self._stopping)
            if session.lost.is_set():
                LOGGER.warning("lost the validator at %s", self.url)
                return
            await unregister(ask, self.url, self._abandon, self._unregister_timeout)
            await self._finish_in_flight(session)
        finally:
            self._ready_file.clear()
            if self._tallies is not None:
                self._tallies.registered = False
            watchdog.cancel()

    async def _cover_for_stuck_handlers(self, session: _Session) -> None:
        """While a handler blocks the handler thread, read the socket here: pings must still be answered."""
        scheduler = self._scheduler
        assert scheduler is not None
        while not session.lost.is_set():
            await asyncio.sleep(STUCK_CHECK_EVERY)
            if scheduler.stuck_for() > STUCK_CHECK_EVERY:
                for frame in session.connection.receive():
                    self._dispatch(session.connection, frame)

    async def _connected(self, session: _Session) -> bool:
        while True:
            await self._first(session.ready, session.lost, self._stopping, timeout=NOT_CONNECTED_WARNING_EVERY)
            if self._stopping.is_set() or session.lost.is_set():
                return False
            if session.ready.is_set():
                return True
            LOGGER.warning("the validator at %s is not answering yet; still trying", self.url)

    async def _finish_in_flight(self, session: _Session) -> None:
        scheduler = self._scheduler
        assert scheduler is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._shutdown_grace
        while scheduler.in_flight and not session.lost.is_set() and not self._abandon.is_set():
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            await asyncio.sleep(min(0.01, remaining))
        if scheduler.in_flight:
            LOGGER.warning(
                "abandoning %d transaction(s) in flight; the validator will send them again", scheduler.in_flight
            )

    def _ask(self, session: _Session, message_type: int, content: bytes) -> "asyncio.Future[Message]":
        """Send a request from the loop; the future resolves with its reply."""
        reply: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        correlation_id = self._next_id()
        self._pending.expect(correlation_id, LoopSink(reply))
        reply.add_done_callback(lambda _: self._pending.forget(correlation_id))
        try:
            session.connection.send(envelope(message_type, correlation_id, content))
        except ValidatorConnectionLost as error:
            reply.set_exception(error)
        return reply

    def _open(self, zmq_context: zmq.Context) -> _Session:
        loop = asyncio.get_running_loop()
        session = _Session()

        def send_queue_full() -> None:
            """Called on whichever thread found the queue full; the loop ends the session."""
            with contextlib.suppress(RuntimeError):  # the loop already finished
                loop.call_soon_threadsafe(self._stopped_reading, session)

        try:
            session.connection = connection = ValidatorConnection(
                zmq_context, self.url, send_queue=send_queue_limit(self._max_occupancy), on_lost=send_queue_full
            )
        except zmq.ZMQError as error:
            raise ValueError(f"cannot connect to {self.url!r}: {error}") from None
        self._connections = [known for known in self._connections if not known.closed]
        self._connections.append(connection)
        assert self._scheduler is not None
        self._scheduler.attach(connection)
        loop.add_reader(connection.monitor_fd, self._on_monitor, session)
        session.monitored = True
        loop.call_soon(self._on_monitor, session)
        return session

    def _close(self, session: _Session) -> None:
        """Let go of the connection; whoever still waits on it is told it is lost."""
        if session.monitored:
            asyncio.get_running_loop().remove_reader(session.connection.monitor_fd)
            session.connection.stop_monitor()
            session.monitored = False
        session.connection.mark_lost()
        self._pending.fail_all(f"lost the validator at {self.url}")
        assert self._scheduler is not None
        self._scheduler.detach(session.connection)

    def _on_monitor(self, session: _Session) -> None:
        for event in session.connection.monitor_events():
            if event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                session.ready.set()
            elif event == zmq.EVENT_DISCONNECTED:
                self._lose(session)
                return

    def _stopped_reading(self, session: _Session) -> None:
        """A frame could not be queued: end the session, as if the validator had gone.

        Only a new connection makes the validator see this processor leave and come back,
        and so send again the transactions it has not been answered.
        """
        if not session.lost.is_set():
            LOGGER.warning("the validator at %s stopped reading its messages; reconnecting", self.url)
            self._lose(session)

    def _lose(self, session: _Session) -> None:
        """The session is over: wake everyone waiting on it."""
        if session.lost.is_set():
            return
        self._close(session)
        session.lost.set()

    def _dispatch(self, connection: ValidatorConnection, frame: bytes) -> None:
        """Act on one frame from the validator; runs on the handler thread (or the loop, covering for it)."""
        try:
            message = Message.FromString(frame)
        except DecodeError:
            LOGGER.warning("ignoring an unreadable frame of %d bytes from the validator", len(frame))
            return
        kind = message.message_type
        if WIRE_LOGGER.isEnabledFor(logging.DEBUG):
            WIRE_LOGGER.debug("received %s %s", message_type_name(kind), message.correlation_id)
        if kind == Message.TP_PROCESS_REQUEST:
            assert self._scheduler is not None
            self._scheduler.submit((connection, message))
        elif kind == Message.PING_REQUEST:
            with contextlib.suppress(ValidatorConnectionLost):
                connection.send(envelope(Message.PING_RESPONSE, message.correlation_id, b""))
        elif not self._pending.deliver(message):
            LOGGER.debug("ignoring %s %s: nothing waits for it", message_type_name(kind), message.correlation_id)

    def _on_signal(self, signum: signal.Signals) -> None:
        LOGGER.info("received %s", signum.name)
        self._request_stop()

    def _request_stop(self) -> None:
        if self._stopping.is_set():
            if not self._abandon.is_set():
                LOGGER.warning("asked to stop again: abandoning transactions in flight")
            self._abandon.set()
            return
        LOGGER.info("stopping")
        self._stopping.set()

    @staticmethod
    async def _first(*events: asyncio.Event, timeout: float | None = None) -> None:
        """Wait until any of ``events`` is set, or ``timeout`` passes."""
        waits = [asyncio.ensure_future(event.wait()) for event in events]
        try:
            await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
