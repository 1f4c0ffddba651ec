"""One broker session shared by many receivers, each on topics of its own: how one process serves many matches.

A house plays hundreds of channels at once; a broker session each would be hundreds of
connections and network threads. The hub opens one session and routes each message by
its exact topic to the receiver that subscribed to it, and tells every receiver when the
session came back after a loss (each republishes its latest message). A
:class:`HubSession` looks to its user like a session of its own, so the code that plays
one match plays it on a hub unchanged. No game knowledge: topics and payloads are opaque.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Protocol

Receiver = Callable[[str, bytes], "Future[None] | None"]


class Session(Protocol):
    """What the hub needs of its one session: :class:`client_core.broker.BrokerSession` or a test's fake."""

    def connect(self, timeout: float) -> None: ...

    def subscribe(self, topic: str, timeout: float) -> None: ...

    def publish(self, topic: str, payload: bytes, timeout: float) -> None: ...

    def close(self) -> None: ...


OpenSession = Callable[[Receiver, Callable[[], None]], Session]
"""Makes the hub's session from its message receiver and its reconnection callback."""


class BrokerHub:
    """One session, many receivers routed by topic."""

    def __init__(self, open_session: OpenSession) -> None:
        self._lock = threading.Lock()
        self._routes: dict[str, Receiver] = {}
        self._watchers: dict[HubSession, Callable[[], None]] = {}
        self._connected = False
        self.session = open_session(self._dispatch, self._reconnected)

    def connect(self, timeout: float) -> None:
        """Connect the one session, the first time only."""
        with self._lock:
            if self._connected:
                return
            self.session.connect(timeout)
            self._connected = True

    @property
    def lag(self) -> float:
        """How far behind the broker is now (seconds), as the one session measures it; 0 when it does not."""
        return float(getattr(self.session, "lag", 0.0))

    def session_for(self, on_message: Receiver, on_reconnect: Callable[[], None] | None = None) -> HubSession:
        """A session of one user's own on this hub."""
        return HubSession(self, on_message, on_reconnect)

    def close(self) -> None:
        """Close the one session: every user's session ends with it."""
        with self._lock:
            self._routes.clear()
            self._watchers.clear()
        self.session.close()

    def _route(self, topic: str, receiver: Receiver) -> None:
        with self._lock:
            self._routes[topic] = receiver

    def _unroute(self, user: HubSession) -> None:
        with self._lock:
            for topic in user.topics:
                if self._routes.get(topic) is user.on_message:
                    del self._routes[topic]
            self._watchers.pop(user, None)

    def _watch(self, user: HubSession, on_reconnect: Callable[[], None]) -> None:
        with self._lock:
            self._watchers[user] = on_reconnect

    def _dispatch(self, topic: str, payload: bytes) -> Future[None] | None:
        """On the session's thread: hand the message to the receiver of its topic (none: it is acknowledged)."""
        with self._lock:
            receiver = self._routes.get(topic)
        return None if receiver is None else receiver(topic, payload)

    def _reconnected(self) -> None:
        with self._lock:
            watchers = list(self._watchers.values())
        for watcher in watchers:
            watcher()


class HubSession:
    """One user's session on a hub: its subscriptions route to it; closing it leaves the hub's session open."""

    def __init__(self, hub: BrokerHub, on_message: Receiver, on_reconnect: Callable[[], None] | None) -> None:
        self.hub, self.on_message = hub, on_message
        self.topics: list[str] = []
        if on_reconnect is not None:
            hub._watch(self, on_reconnect)

    @property
    def connected(self) -> bool:
        """Whether the hub's session is connected now."""
        return bool(getattr(self.hub.session, "connected", True))

    @property
    def lag(self) -> float:
        """How far behind the broker is now (seconds), as the hub's session measures it; 0 when it does not."""
        return self.hub.lag

    def connect(self, timeout: float) -> None:
        """Connect the hub's session if it is not yet."""
        self.hub.connect(timeout)

    def subscribe(self, topic: str, timeout: float) -> None:
        """Receive ``topic``'s messages (routed to this user alone)."""
        self.hub._route(topic, self.on_message)
        self.topics.append(topic)
        self.hub.session.subscribe(topic, timeout)

    def publish(self, topic: str, payload: bytes, timeout: float) -> None:
        """Publish through the hub's session."""
        self.hub.session.publish(topic, payload, timeout)

    def close(self) -> None:
        """Stop routing to this user; the hub's session stays open for the others."""
        self.hub._unroute(self)
