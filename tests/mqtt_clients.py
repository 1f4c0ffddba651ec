"""MQTT clients the broker tests use: two players' sessions, a hostile client, and a counter of reconnections."""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator

from paho.mqtt import client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from client_core.broker import BrokerAddress, BrokerSession


@contextlib.contextmanager
def alice_and_bob(where: BrokerAddress, name: str, topic: str, seconds: float
                  ) -> Iterator[tuple[BrokerSession, queue.Queue[bytes]]]:  # fmt: skip
    """Two players on the broker at ``where`` (client ids ``<name>-alice`` and ``<name>-bob``): bob subscribed to
    ``topic``, what reaches him put on the queue; alice's session to publish with. Both closed on leaving."""
    inbox: queue.Queue[bytes] = queue.Queue()
    bob = BrokerSession(where, f"{name}-bob", lambda _topic, payload: inbox.put(payload))
    alice = BrokerSession(where, f"{name}-alice", lambda _topic, _payload: None)
    try:
        bob.connect(seconds)
        bob.subscribe(topic, seconds)
        alice.connect(seconds)
        yield alice, inbox
    finally:
        alice.close()
        bob.close()


class Hostile:
    """A stranger's paho client using a player's client id with a clean session: it takes the session over, and
    wiped it; with ``fight``, it takes it again each time the player comes back (paho's reconnection, every 50 ms)."""

    def __init__(self, port: int, client_id: str, fight: bool = False) -> None:
        self.fight = fight
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True)
        self.client.reconnect_delay_set(0.05, 0.05)
        self.client.on_connect = self._connected
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _connected(self, *_args: object) -> None:
        if not self.fight:
            self.client.disconnect()  # in and out: the player's session is gone, and it is not fought for

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Reconnections:
    """Counts the session's reconnections and lets a test wait for the next one."""

    def __init__(self) -> None:
        self.count = 0
        self.event = threading.Event()

    def __call__(self) -> None:
        self.count += 1
        self.event.set()

    def next(self, seconds: float) -> bool:
        self.event.clear()
        return self.event.wait(seconds)
