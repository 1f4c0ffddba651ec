"""Off-chain move latency of chips: a state signed by one player -> verified and applied by the other, through a broker.

Each move is timed from the moment its mover starts building it (``chips_client.moves``),
signs it and publishes it (``client_core.broker``, QoS 1, returning on PUBACK), to the
moment the other player's engine has decoded, verified and applied it
(``chips_client.messages``, ``chips_client.engine.Channel.check`` and ``accept``): the
path ``chips play`` runs, without its store (whose fsync depends on the disk). Both
players of a channel live in this process, each with a broker session of its own, so
one clock times both ends. Two modes, each run through xo-devnet's embedded broker
(``xo-devnet --ephemeral --no-tp``) and through Debian's mosquitto (on a free port):

- one channel, the players answering each other at once: the latency of a move;
- ``--channels`` channels at once (100), each making a move every ``--interval`` seconds (1).

With ``--store``, each player also writes every state to its store (SQLite, fsync) before sending it
and once it has applied one, as ``chips play`` does.

    python benchmarks/chips_message_latency.py                      # both modes, both brokers
    python benchmarks/chips_message_latency.py --broker mqtt://127.0.0.1:1883 --channels 100 --seconds 30

Prints one JSON line per broker and mode (ms), with the targets of issue 25: p50 at most 5 ms for
one channel, p99 at most 50 ms for 100; exits 1 when a move was lost or refused.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import pwd
import queue
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from chips_client import moves
from chips_client import transactions as tx
from chips_client.engine import Channel, Held, Refusal, Stale
from chips_client.messages import decode_message, encode_message, topic
from chips_client.store import Store
from chips_tp import xo_app
from chips_tp.channel import Fixed, channel_id, mover
from chips_tp.channel_state import State
from chips_tp.ops import SignedState
from client_core.broker import BrokerAddress, BrokerError, BrokerSession
from xo_core.signing import Signer
from xo_devnet.spawn import DevnetProcess

SECONDS = 10.0
DEPOSIT = 10**12
"""Deposits no run can exhaust at a stake of 1, so every channel plays on for as long as the run lasts."""
TARGETS = {"one channel": ("p50_ms", 5.0), "many channels": ("p99_ms", 50.0)}


@dataclass
class Player:
    """One side of a channel: its key, its view of the channel (the real engine) and its broker session."""

    signer: Signer
    channel: Channel
    session: BrokerSession | None = None
    store: Store | None = None
    """With --store: the player's store, written (fsync) before a state is sent and once one is applied."""


@dataclass
class Table:
    """One channel between two players of this process, with the moves in flight (turn -> when it was started)."""

    fixed: Fixed
    players: tuple[Player, Player]
    inbox: queue.Queue[tuple[int, bytes]] = field(default_factory=queue.Queue)
    started: dict[int, float] = field(default_factory=dict)


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    refused: int = 0
    publish_failures: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, seconds: float) -> None:
        with self.lock:
            self.latencies.append(seconds)

    def count(self, what: str) -> None:
        with self.lock:
            setattr(self, what, getattr(self, what) + 1)


def new_table(number: int) -> Table:
    signers = (Signer.from_hex(secrets.token_hex(32)), Signer.from_hex(secrets.token_hex(32)))
    fixed = Fixed((signers[0].public_key, signers[1].public_key), "xo", 1, (DEPOSIT, DEPOSIT), 3600, number + 1)
    start = State(channel_id(fixed), 0, False, xo_app.INITIAL, fixed.deposits)
    held = Held(start, SignedState(tx.state_bytes(fixed, start), (None, None)))
    return Table(fixed, (Player(signers[0], Channel(fixed, 0, [held])), Player(signers[1], Channel(fixed, 1, [held]))))


def next_state(state: State, fixed: Fixed) -> State:
    """The mover's move: the first free space, or the rematch step after a game (games go on for ever)."""
    data = state.app
    assert isinstance(data, xo_app.XoData)
    if moves.xo_mark(data) is None:
        return moves.xo_next(state, fixed, None)
    taken = data.crosses | data.noughts
    return moves.xo_next(state, fixed, next(space for space in range(1, 10) if not taken >> (9 - space) & 1))


def make_move(table: Table, tally: Tally) -> None:
    """The player to move builds, signs, keeps and sends the next state."""
    latest = table.players[0].channel.latest.state
    me = mover(latest.turn + 1)
    player = table.players[me]
    started = time.perf_counter()
    state = next_state(player.channel.latest.state, table.fixed)
    signed = tx.sign_move(table.fixed, state, player.signer)
    player.channel.accept(state, signed)
    if player.store is not None:
        player.store.save_state(player.channel.id, state.turn, signed)
    table.started[state.turn] = started
    assert player.session is not None
    try:
        player.session.publish(
            topic(player.channel.id, table.players[1 - me].signer.public_key), encode_message(signed), SECONDS
        )
    except BrokerError:
        tally.count("publish_failures")


def receive(table: Table, me: int, data: bytes, tally: Tally) -> bool:
    """The receiver decodes, verifies and applies the state; True when it was the next one."""
    player = table.players[me]
    try:
        signed = decode_message(data)
        state = player.channel.check(signed)
    except (Refusal, ValueError):
        tally.count("refused")
        return False
    except Stale:
        return False
    player.channel.accept(state, signed)
    if player.store is not None:
        player.store.save_state(player.channel.id, state.turn, signed)
    tally.add(time.perf_counter() - table.started.pop(state.turn))
    return True


def play(table: Table, tally: Tally, interval: float, first_at: float, until: float) -> None:
    """One channel's loop: whoever's turn it is moves every ``interval`` seconds; what arrives is applied at once."""
    due = first_at
    while time.perf_counter() < until:
        try:
            me, data = table.inbox.get(timeout=max(0.0, min(due, until) - time.perf_counter()))
        except queue.Empty:
            if time.perf_counter() < until:
                make_move(table, tally)
                due += interval
            continue
        receive(table, me, data, tally)


def connect(tables: list[Table], where: BrokerAddress, run: str, stores: Path | None) -> None:
    """Each player's session, subscribed to its own topic, then (with ``stores``) its store there.

    Stores are opened last: paho waits on its sockets with select(), which takes no descriptor above 1023,
    and 200 stores (three files each) would push the sockets' descriptors past it.
    """
    for number, table in enumerate(tables):
        for me, player in enumerate(table.players):
            player.session = BrokerSession(
                where, f"bench-{run}-{number}-{me}", lambda _topic, data, t=table, m=me: t.inbox.put((m, data))
            )
            player.session.connect(SECONDS)
            player.session.subscribe(topic(player.channel.id, player.signer.public_key), SECONDS)
    if stores is not None:
        for number, table in enumerate(tables):
            for me, player in enumerate(table.players):
                player.store = Store(stores / f"{run}-{number}-{me}.sqlite")


def measure(
    where: BrokerAddress, channels: int, interval: float, seconds: float, stores: Path | None
) -> tuple[Tally, int]:
    """Run ``channels`` channels for ``seconds``; the tally and how many moves were never received."""
    tables = [new_table(number) for number in range(channels)]
    tally = Tally()
    try:
        connect(tables, where, secrets.token_hex(4), stores)
        start = time.perf_counter() + 0.2
        until = start + seconds
        spread = interval / channels
        threads = [
            threading.Thread(target=play, args=(table, tally, interval, start + number * spread, until), daemon=True)
            for number, table in enumerate(tables)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(seconds + 2 * SECONDS)
        time.sleep(0.2)
        for table in tables:  # what arrived in the last moments
            while not table.inbox.empty():
                me, data = table.inbox.get_nowait()
                receive(table, me, data, tally)
        lost = sum(len(table.started) for table in tables)
    finally:
        for table in tables:
            for player in table.players:
                if player.session is not None:
                    player.session.close()
                if player.store is not None:
                    player.store.close()
    return tally, lost


def cpu_path_us(count: int) -> float:
    """Median microseconds of the same path without a broker: build, sign, encode, decode, verify, apply."""
    table = new_table(0)
    timings = []
    for _ in range(count):
        latest = table.players[0].channel.latest.state
        me = mover(latest.turn + 1)
        started = time.perf_counter()
        state = next_state(latest, table.fixed)
        signed = tx.sign_move(table.fixed, state, table.players[me].signer)
        table.players[me].channel.accept(state, signed)
        other = table.players[1 - me].channel
        received = decode_message(encode_message(signed))
        other.accept(other.check(received), received)
        timings.append(time.perf_counter() - started)
    return round(sorted(timings)[len(timings) // 2] * 1e6, 1)


def percentile(ordered: list[float], fraction: float) -> float:
    return round(ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))] * 1000, 2)


def report(broker: str, url: str, mode: str, tally: Tally, lost: int, **extra: object) -> dict[str, object]:
    ordered = sorted(tally.latencies)
    result: dict[str, object] = {"benchmark": "chips_message_latency", "broker": broker, "url": url, "mode": mode}
    result |= extra
    result["moves"] = len(ordered)
    if ordered:
        result |= {
            "p50_ms": percentile(ordered, 0.5),
            "p90_ms": percentile(ordered, 0.9),
            "p99_ms": percentile(ordered, 0.99),
            "max_ms": round(ordered[-1] * 1000, 2),
        }
        key, target = TARGETS[mode]
        result["target"] = f"{key} <= {target:g}"
        result["met"] = bool(result[key] <= target)
    result["errors"] = tally.refused + tally.publish_failures + lost + (0 if ordered else 1)
    return result


@contextlib.contextmanager
def embedded_broker() -> Iterator[str]:
    """xo-devnet (no processors) on free ports: its embedded broker's URL."""
    with DevnetProcess(["--ephemeral", "--no-tp"]) as devnet:
        yield devnet.broker_url


def mosquitto_executable() -> str | None:
    """``$XO_MOSQUITTO``, else ``mosquitto`` on the PATH, else Debian's /usr/sbin/mosquitto, if there."""
    found = os.environ.get("XO_MOSQUITTO") or shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    return found if Path(found).exists() else None


@contextlib.contextmanager
def mosquitto_broker() -> Iterator[str]:
    """Debian's mosquitto on a free loopback port, with a config of its own in a temporary directory."""
    executable = mosquitto_executable()
    if executable is None:
        raise SystemExit("chips_message_latency: no mosquitto (apt-get install mosquitto, or --brokers embedded)")
    with tempfile.TemporaryDirectory(prefix="mosquitto-bench-") as directory:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        config = Path(directory, "mosquitto.conf")
        config.write_text(
            f"user {pwd.getpwuid(os.getuid()).pw_name}\nlistener {port} 127.0.0.1\nallow_anonymous true\n"
            "persistence false\nmax_queued_messages 10000\nset_tcp_nodelay true\nlog_dest none\n"
        )
        process = subprocess.Popen([executable, "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + SECONDS
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        raise SystemExit("chips_message_latency: mosquitto did not start") from None
                    time.sleep(0.02)
            yield f"mqtt://127.0.0.1:{port}"
        finally:
            process.terminate()
            process.wait(SECONDS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--brokers",
        help="which to start: embedded, mosquitto (default: both; mosquitto only where it is installed)",
    )
    parser.add_argument("--broker", metavar="URL", help="measure this running broker instead of starting any")
    parser.add_argument("--moves", type=int, default=2000, help="moves of the one-channel run (default 2000)")
    parser.add_argument("--channels", type=int, default=100, help="channels of the many-channel run (default 100)")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between a channel's moves (default 1)")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the many-channel run (default 30)")
    parser.add_argument(
        "--store",
        nargs="?",
        const=tempfile.gettempdir(),
        metavar="DIR",
        help="also write every state to the players' stores (SQLite, fsync) before sending and on applying, as"
        " chips play does; in a temporary directory under DIR (default: the system's temporary directory)",
    )
    parser.add_argument("--smoke", action="store_true", help="a few moves of each mode, each broker: checks it runs")
    args = parser.parse_args()
    if args.smoke:
        args.moves, args.channels, args.seconds = 20, 5, 2.0
    starters = {"embedded": embedded_broker, "mosquitto": mosquitto_broker}
    if args.broker:
        brokers = [("given", contextlib.nullcontext(args.broker))]
    else:
        names = [name.strip() for name in (args.brokers or "embedded,mosquitto").split(",") if name.strip()]
        if args.brokers is None and mosquitto_executable() is None:
            print("chips_message_latency: no mosquitto here (apt-get install mosquitto): the embedded broker only",
                  file=sys.stderr)  # fmt: skip
            names.remove("mosquitto")
        unknown = set(names) - set(starters)
        if unknown:
            parser.error(f"unknown broker {sorted(unknown)[0]!r}: choose among embedded, mosquitto")
        brokers = [(name, starters[name]()) for name in names]
    errors = 0
    for name, starting in brokers:
        with starting as url, contextlib.ExitStack() as stack:
            stores = None
            if args.store is not None:
                stores = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="chips-bench-", dir=args.store)))
            where = BrokerAddress.parse(url, {})
            one = one_channel(where, args.moves, stores)
            results = [
                report(name, url, "one channel", *one, store=stores is not None,
                       cpu_path_us=cpu_path_us(min(args.moves, 500))),
                report(
                    name, url, "many channels",
                    *measure(where, args.channels, args.interval, args.seconds, stores),
                    store=stores is not None, channels=args.channels, interval_s=args.interval, seconds=args.seconds,
                ),
            ]  # fmt: skip
        for result in results:
            print(json.dumps(result), flush=True)
            errors += int(result["errors"])  # type: ignore[call-overload]
    return 1 if errors else 0


def one_channel(where: BrokerAddress, count: int, stores: Path | None) -> tuple[Tally, int]:
    """One channel, the players answering at once, until ``count`` moves were received (or a time limit)."""
    tally = Tally()
    table = new_table(0)
    try:
        connect([table], where, secrets.token_hex(4), stores)
        make_move(table, tally)
        deadline = time.perf_counter() + count * 0.1 + SECONDS
        while len(tally.latencies) < count and time.perf_counter() < deadline:
            try:
                me, data = table.inbox.get(timeout=SECONDS)
            except queue.Empty:
                break
            if receive(table, me, data, tally) and len(tally.latencies) < count:
                make_move(table, tally)
    finally:
        for player in table.players:
            if player.session is not None:
                player.session.close()
            if player.store is not None:
                player.store.close()
    return tally, len(table.started)


if __name__ == "__main__":
    sys.exit(main())
