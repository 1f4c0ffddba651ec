"""How fast a player's broker session recovers: from a broker restart, and from a takeover of its session.

Runs Debian's ``mosquitto`` (no persistence: a restarted broker knows no session) on a free
loopback port, and :class:`client_core.broker.BrokerSession` s as ``chips play`` opens them.

- restart: bob is subscribed; alice publishes a probe to him every 10 ms; mosquitto is
  SIGKILLed, started again after ``--down`` seconds; measured from the moment it listens
  again to the first probe bob hears (his session reconnected and subscribed again).
- takeover: a stranger connects with bob's client id and a clean session (cutting bob off
  and dropping his subscriptions) and stays connected; measured from the stranger's CONNACK
  to bob's session back and subscribed again (``on_reconnect``).

Prints one JSON line with the median and worst of ``--trials`` of each, in ms.

    python benchmarks/broker_recovery.py --trials 10
    python benchmarks/broker_recovery.py --trials 3 --down 30
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from paho.mqtt import client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from client_core.broker import BrokerAddress, BrokerSession


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def mosquitto_executable() -> str | None:
    """Debian's mosquitto, where the suite finds it."""
    found = os.environ.get("XO_MOSQUITTO") or shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    return found if Path(found).exists() else None


class Broker:
    """mosquitto on a loopback port, killed and started again at will."""

    def __init__(self, directory: Path) -> None:
        executable = mosquitto_executable()
        assert executable is not None
        self.port = free_port()
        self.config = directory / "mosquitto.conf"
        self.config.write_text(
            f"user {pwd.getpwuid(os.getuid()).pw_name}\npersistence false\nallow_anonymous true\n"
            f"set_tcp_nodelay true\nlog_type error\nlistener {self.port} 127.0.0.1\n"
        )
        self.argv = [executable, "-c", str(self.config)]
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> float:
        """Start it; the moment it listens."""
        self.process = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return time.monotonic()
            except OSError:
                time.sleep(0.005)
        raise SystemExit("mosquitto did not start")

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(5)


def restart_trial(broker: Broker, down: float, trial: int) -> float:
    """Seconds from the restarted broker listening to the first probe bob hears."""
    where = BrokerAddress.parse(f"mqtt://127.0.0.1:{broker.port}", {})
    heard = threading.Event()
    bob = BrokerSession(where, f"bench-restart-bob-{trial}", lambda _t, _p: heard.set(), say=lambda _line: None)
    alice = BrokerSession(where, f"bench-restart-alice-{trial}", lambda _t, _p: None, say=lambda _line: None)
    bob.connect(5)
    bob.subscribe("bench/bob", 5)
    alice.connect(5)
    broker.kill()
    time.sleep(down)
    listening = broker.start()
    heard.clear()
    deadline = time.monotonic() + 30
    while not heard.is_set() and time.monotonic() < deadline:
        alice.publish("bench/bob", b"probe", 0.01)
        heard.wait(0.01)
    took = time.monotonic() - listening
    bob.close()
    alice.close()
    if not heard.is_set():
        raise SystemExit("bob never heard a probe after the restart")
    return took


def takeover_trial(broker: Broker, trial: int) -> float:
    """Seconds from a stranger's takeover of bob's session to bob's session back and subscribed."""
    where = BrokerAddress.parse(f"mqtt://127.0.0.1:{broker.port}", {})
    back = threading.Event()
    client_id = f"bench-takeover-bob-{trial}"
    bob = BrokerSession(where, client_id, lambda _t, _p: None, on_reconnect=back.set)
    bob.connect(5)
    bob.subscribe("bench/bob", 5)
    taken = threading.Event()
    taken_at = [0.0]

    def connected(*_args: object) -> None:
        taken_at[0] = time.monotonic()
        taken.set()

    stranger = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True)
    stranger.reconnect_delay_set(60, 60)  # it does not fight back
    stranger.on_connect = connected
    stranger.connect("127.0.0.1", broker.port)
    stranger.loop_start()
    if not (taken.wait(10) and back.wait(10)):
        raise SystemExit("bob's session did not come back after the takeover")
    took = time.monotonic() - taken_at[0]
    stranger.disconnect()
    stranger.loop_stop()
    bob.close()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--down", type=float, default=0.0, help="seconds the broker stays down (default 0)")
    parser.add_argument("--smoke", action="store_true", help="one trial of each: checks it runs")
    args = parser.parse_args()
    if args.smoke:
        args.trials, args.down = 1, 0.0
    if mosquitto_executable() is None:
        print(json.dumps({"skipped": "no mosquitto: install Debian's (apt-get install mosquitto)"}))
        return
    with tempfile.TemporaryDirectory() as directory:
        broker = Broker(Path(directory))
        broker.start()
        try:
            restarts = [restart_trial(broker, args.down, trial) for trial in range(args.trials)]
            takeovers = [takeover_trial(broker, trial) for trial in range(args.trials)]
        finally:
            if broker.process is not None and broker.process.poll() is None:
                broker.kill()

    def ms(values: list[float]) -> dict[str, float]:
        return {"p50_ms": round(statistics.median(values) * 1000, 1), "max_ms": round(max(values) * 1000, 1)}

    print(json.dumps({"trials": args.trials, "down_s": args.down, "restart": ms(restarts), "takeover": ms(takeovers)}))


if __name__ == "__main__":
    main()
