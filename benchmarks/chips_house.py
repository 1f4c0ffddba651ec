"""A house under load: many players accept one house's offer at once on xo-devnet, and every match is played out.

The house is a real ``chips offer --bot perfect --count N`` process (one broker session,
one store, one reading of the chain). The players live in this process: each accepts as
``chips accept`` does (opens the channel on the offer's terms) at the same moment, waits
for the house's join, and plays its side with the real match loop
(:class:`chips_client.match.Match`, the computer choosing at random) on a broker session that,
like ``chips accept``'s, waits for a broker out of reach. Timed per player:

- accept -> first move: from submitting the open to receiving the house's first signed
  move (it includes the open's commit, the house seeing it and its join's commit, and the
  player's own first move);
- a move's reply: from publishing a move to receiving the house's next one (two broker
  hops and the house's turn: at least one move's one-way latency, issue 25's figure).

Reported too: the house's CPU time (user and system, in all and per match) and its peak
memory (RSS), xo-devnet's peak memory, the ledger's CPU time per match (xo-devnet and its
processors, from the house's start to its exit), the players' processes' CPU time, how many accepts
the house declined, and the chips transactions on the chain by op (an honest crowd causes
no ``challenge``, ``respond``, ``checkpoint`` or ``finalize``). Checks that every match
concluded and that the chips in all accounts and channels are what was issued. Prints one
JSON line; exits 1 when a match did not conclude or a chip went missing.

The players share one follower of the chain, as a house does, and each has a broker
connection of its own: ``--broker devnet`` (xo-devnet's embedded broker, the default) or
``--broker mosquitto`` (Debian's, started for the run on a loopback port).

    python benchmarks/chips_house.py                 # 100 players
    python benchmarks/chips_house.py --players 1000 --broker mosquitto
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import multiprocessing
import os
import pwd
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event
from pathlib import Path

from chips_client import transactions as tx
from chips_client.asking import Immediate
from chips_client.chain import RestChain
from chips_client.channel_feed import ChannelFeed
from chips_client.channels import address_of
from chips_client.computer import Computer
from chips_client.declines import DECLINE_ROOT, decline_topic, read_decline
from chips_client.match import Connector, Match, Receiver
from chips_client.messages import decode_message
from chips_client.offer_board import read_board
from chips_client.offers import SignedOffer, channel_fixed, channel_name, decode_offer, encode_offer
from chips_client.shared_chain import MatchChain
from chips_client.store import ChannelTerms, Store
from chips_tp.apps import APPS
from chips_tp.channel import Fixed, channel_id
from chips_tp.channel_state import decode_state
from chips_tp.family import ACCOUNT_TYPE, CHANNEL_TYPE, FAMILY_NAME, NAMESPACE
from chips_tp.payload import parse_payload
from chips_tp.state import FUNDING, Channel, decode_channel
from client_core.broker import BrokerAddress, BrokerSession
from client_core.errors import Rejected, TimedOut, Unavailable
from client_core.rest import RestClient
from xo_core import canonical
from xo_core.canonical import Malformed
from xo_core.keyfiles import write_key_pair
from xo_core.signing import Signer
from xo_devnet.spawn import DevnetProcess

DEPOSIT = 5
STAKE = 1
MATCH_SECONDS = float(os.environ.get("HOUSE_MATCH_SECONDS", "300"))
#: A player's match sleeps this long when nothing wakes it (a message, a block changing its channel), as a house's.
PLAYER_PASS_SECONDS = 1.0
#: Players in one process at most: each holds a broker connection and a REST one, and paho's loop (select) cannot watch
#: a socket numbered past 1024.
PLAYERS_PER_PROCESS = 250
#: A player declined (the house busy) cancels and accepts again, up to this many accepts in all.
ACCEPTS = 5


class Timed:
    """A player's broker session, connected before the accept (as ``chips accept`` is, having read the board): it
    hands messages to the match once one plays, and notes when each move went out and each of the house's came in."""

    def __init__(self, player: Player, broker: BrokerAddress, app: str) -> None:
        self.player, self.app = player, app
        self.sent: dict[int, float] = {}
        self.receiver: Receiver | None = None
        self.reconnected: Callable[[], None] = lambda: None
        self.declined: str | None = None
        self.expected: tuple[bytes, str] | None = None
        self.wake: Callable[[], None] = lambda: None
        client = f"bench-house-{player.signer.public_key[2:18]}"
        self.session = BrokerSession(broker, client, self._heard, on_reconnect=self._reconnected,
                                     persistent=False, say=player.broker_lines.append)  # fmt: skip

    def _reconnected(self) -> None:
        self.reconnected()

    def turn(self, payload: bytes) -> int:
        return decode_state(decode_message(payload).state, APPS[self.app].decode).turn

    def listen_for_decline(self, channel: bytes, offerer: str) -> None:
        """Hear the house's decline of the accept of ``channel`` (subscribed before its open, as chips accept does)."""
        self.declined, self.expected = None, (channel, offerer)
        self.session.subscribe(decline_topic(channel, self.player.signer.public_key), 60.0)

    def _heard(self, topic: str, payload: bytes) -> Future[None] | None:
        if topic.startswith(DECLINE_ROOT) and self.expected is not None:
            with contextlib.suppress(Malformed):
                self.declined = read_decline(payload, *self.expected)
                self.wake()
            return None
        try:
            self.player.heard(self.turn(payload), time.perf_counter())
        except Malformed:  # not a state: the match refuses it, and it is counted
            self.player.strays += 1
        return None if self.receiver is None else self.receiver(topic, payload)

    @property
    def connected(self) -> bool:
        return self.session.connected

    def connect(self, timeout: float) -> None:
        """Connected already, before the accept."""

    def subscribe(self, topic: str, timeout: float) -> None:
        self.session.subscribe(topic, timeout)

    def publish(self, topic: str, payload: bytes, timeout: float) -> None:
        self.sent.setdefault(self.turn(payload), time.perf_counter())
        self.session.publish(topic, payload, timeout)

    def close(self) -> None:
        self.session.close()


class Player:
    """One accepter: its key, its timings, and its match's outcome."""

    def __init__(self, signer: Signer) -> None:
        self.signer = signer
        self.accepted_at = 0.0
        self.first_move_ms: float | None = None
        self.replies_ms: list[float] = []
        self.outcome = ""
        self.session: Timed | None = None
        """Its broker session, connected before the accept."""
        self.strays = 0
        self.declines = 0
        """Accepts the house declined (busy): cancelled and made again."""
        """Messages on the player's topic that were no state (a broker's stray delivery): refused by the match."""
        self.broker_lines: list[str] = []
        """What the player's broker session said (the broker out of reach, and back), as ``chips accept`` prints."""

    def heard(self, turn: int, at: float) -> None:
        if self.first_move_ms is None:
            self.first_move_ms = (at - self.accepted_at) * 1000
        if self.session is not None and turn - 1 in self.session.sent:
            self.replies_ms.append((at - self.session.sent[turn - 1]) * 1000)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100, help="players accepting at once (default 100)")
    parser.add_argument("--rounds", type=int, default=1, help="XO games per match (default 1)")
    parser.add_argument("--broker", choices=("devnet", "mosquitto"), default="devnet",
                        help="the players' and the house's broker: xo-devnet's own, or Debian's mosquitto")
    parser.add_argument("--smoke", action="store_true", help="three players: checks it runs")
    args = parser.parse_args()
    if args.smoke:
        args.players = 3
    with contextlib.ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="chips-house-")))
        devnet = stack.enter_context(DevnetProcess(("--ephemeral", "--min-challenge", "1"),
                                                   log_path=work / "devnet.log"))  # fmt: skip
        url = str(devnet.ready["broker_url"]) if args.broker == "devnet" else stack.enter_context(mosquitto(work))
        result = run(devnet, work, args.players, args.rounds, url)
    print(json.dumps({"broker": args.broker, **result}), flush=True)
    return 1 if result["errors"] else 0


@contextlib.contextmanager
def mosquitto(work: Path) -> Iterator[str]:
    """Debian's mosquitto on a free loopback port, for the run: its URL."""
    found = os.environ.get("XO_MOSQUITTO") or shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(found).exists():
        raise SystemExit("chips_house: --broker mosquitto needs mosquitto (apt install mosquitto, or $XO_MOSQUITTO)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    config = work / "mosquitto.conf"
    config.write_text(f"user {pwd.getpwuid(os.getuid()).pw_name}\npersistence false\nallow_anonymous true\n"
                      "set_tcp_nodelay true\nlog_type error\nmax_queued_messages 10000\nmax_inflight_messages 0\n"
                      f"listener {port} 127.0.0.1\n")  # fmt: skip
    process = subprocess.Popen([found, "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        ends = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > ends:
                    raise SystemExit("chips_house: mosquitto did not start") from None
                time.sleep(0.01)
        yield f"mqtt://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


def run(devnet: DevnetProcess, work: Path, count: int, rounds: int, broker_url: str) -> dict[str, object]:
    broker = BrokerAddress.parse(broker_url, {})
    keys = work / "keys"
    house = Signer.generate()
    write_key_pair(keys, "house", house)
    players = [Player(Signer.generate()) for _ in range(count)]
    with RestClient(devnet.rest_url) as client:
        issuer = RestChain(client, Signer.from_hex((devnet.key_dir / "chips-issuer.priv").read_text()))
        issuer.submit_all([tx.issue(issuer.signer, house.public_key, DEPOSIT * count)]
                          + [tx.issue(issuer.signer, p.signer.public_key, DEPOSIT) for p in players], "the issue")  # type: ignore[arg-type]  # fmt: skip
        issued = total_chips(client)
    assert devnet.process is not None
    ledger_cpu = tree_cpu_seconds(devnet.process.pid)
    log = (work / "house.log").open("w")
    offering = subprocess.Popen(
        [sys.executable, "-m", "chips_cli.main", "offer", "--game", "xo", "--stake", str(STAKE), "--deposit",
         str(DEPOSIT), "--rounds", str(rounds), "--challenge", "60", "--bot", "perfect", "--count", str(count),
         "--for", "600", "--url", devnet.rest_url, "--key-dir", str(keys), "--username", "house", "--broker",
         broker_url],
        stdout=log, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        signed = wait_for_offer(broker, house.public_key)
        played, crowd_cpu = play_all(devnet.rest_url, broker_url, signed, players, work)
        used = waited(offering, MATCH_SECONDS)
        ledger_cpu = tree_cpu_seconds(devnet.process.pid) - ledger_cpu
    finally:
        if offering.poll() is None:
            offering.kill()
            offering.wait()
        log.close()
    output = (work / "house.log").read_text()
    with RestClient(devnet.rest_url) as client:
        conserved = total_chips(client) == issued
        ops = chips_ops(client)
    devnet_peak = peak_rss_mb(devnet.process.pid)
    first = sorted(p.first_move_ms for p in players if p.first_move_ms is not None)
    replies = sorted(ms for p in players for ms in p.replies_ms)
    concluded = sum(p.outcome == "concluded" for p in players)
    return {
        "benchmark": "chips_house", "players": count, "rounds": rounds, "concluded": concluded,
        "chips_conserved": conserved, "seconds": round(played, 1),
        "accept_to_first_move_ms": summary(first), "move_reply_ms": summary(replies), "moves": len(replies),
        "stray_messages": sum(p.strays for p in players),
        "broker_lines": sum(len(p.broker_lines) for p in players),
        "house_exit": offering.returncode,
        "house_cpu_seconds": round(used.ru_utime + used.ru_stime, 2),
        "house_cpu_ms_per_match": round((used.ru_utime + used.ru_stime) * 1000 / count, 1),
        "house_peak_rss_mb": round(used.ru_maxrss / 1024, 1), "devnet_peak_rss_mb": devnet_peak,
        "ledger_cpu_ms_per_match": round(ledger_cpu * 1000 / count, 1),
        "declined": output.count("told them so"), "accepts_declined": sum(p.declines for p in players),
        "on_chain": ops,
        "players_cpu_seconds": round(crowd_cpu, 2),
        "errors": (count - concluded) + (not conserved) + (offering.returncode != 0),
        **({"house_output": output[-3000:], "player_outcomes": sorted({p.outcome[:200] for p in players})[:5],
            "player_broker_lines": sorted({line[:200] for p in players for line in p.broker_lines})[:5]}
           if concluded < count or offering.returncode != 0 else {}),
    }  # fmt: skip


def waited(process: subprocess.Popen[str], seconds: float) -> resource.struct_rusage:
    """Wait for ``process`` to exit (killed after ``seconds``): what it used, its own and no other child's."""
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        pid, status, used = os.wait4(process.pid, os.WNOHANG)
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return used
        time.sleep(0.05)
    process.kill()
    _pid, status, used = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return used


def play_all(rest_url: str, broker_url: str, signed: SignedOffer, players: list[Player], work: Path
             ) -> tuple[float, float]:  # fmt: skip
    """Every player accepts at once and plays its match to the end; how long it all took, and the CPU the players'
    processes used (seconds).

    The players live in processes of PLAYERS_PER_PROCESS (paho's loop cannot watch a socket numbered past 1024, so
    a thousand connections need several processes, as a thousand players on machines of their own would be); each
    process's players share one follower of the chain (:class:`ChannelFeed`). All connect to the broker first, then
    accept together."""
    spawn = multiprocessing.get_context("spawn")
    ready, go, results = spawn.Queue(), spawn.Event(), spawn.Queue()
    groups = [players[start : start + PLAYERS_PER_PROCESS] for start in range(0, len(players), PLAYERS_PER_PROCESS)]
    workers = [spawn.Process(target=crowd, args=(rest_url, broker_url, encode_offer(signed),
                                                 [p.signer.private_key_hex for p in group], str(work / f"crowd-{n}"),
                                                 ready, go, results)) for n, group in enumerate(groups)]  # fmt: skip
    for worker in workers:
        worker.start()
    for _ in workers:
        ready.get(timeout=300)
    started = time.perf_counter()
    go.set()
    cpu = 0.0
    by_key = {p.signer.public_key: p for p in players}
    for _ in workers:
        outcomes, used = results.get(timeout=MATCH_SECONDS + 300)
        cpu += used
        for key, fields in outcomes.items():
            vars(by_key[key]).update(fields)
    played = time.perf_counter() - started
    for worker in workers:
        worker.join(60)
    return played, cpu


def crowd(rest_url: str, broker_url: str, offer: bytes, keys: list[str], store_dir: str, ready: Queue[None],
          go: Event, results: Queue[tuple[dict[str, dict[str, object]], float]]) -> None:  # fmt: skip
    """One process of players: each connects to the broker, then, on ``go``, accepts and plays its match; what each
    measured goes back on ``results``, with the CPU this process used."""
    signed = decode_offer(offer, time.time())
    broker = BrokerAddress.parse(broker_url, {})
    players = [Player(Signer.from_hex(key)) for key in keys]
    connected, start = threading.Barrier(len(players) + 1), threading.Barrier(len(players) + 1)
    Path(store_dir).mkdir()
    with RestClient(rest_url) as reader, Store(Path(store_dir) / "players.sqlite") as store, \
            ChannelFeed(reader) as feed:  # fmt: skip
        woken = Wakers(feed)
        threads = [threading.Thread(target=play_one, args=(rest_url, broker, signed, p, store, feed, woken,
                                                           (connected, start))) for p in players]  # fmt: skip
        for thread in threads:
            thread.start()
        connected.wait(300)
        ready.put(None)
        go.wait()
        start.wait(60)
        for thread in threads:
            thread.join(MATCH_SECONDS)
    used = resource.getrusage(resource.RUSAGE_SELF)
    results.put(({p.signer.public_key: {"first_move_ms": p.first_move_ms, "replies_ms": p.replies_ms,
                                        "outcome": p.outcome, "strays": p.strays, "broker_lines": p.broker_lines,
                                        "declines": p.declines}
                  for p in players}, used.ru_utime + used.ru_stime))  # fmt: skip


class Wakers:
    """The players' matches by channel address: a block that changes a channel wakes its match."""

    def __init__(self, feed: ChannelFeed) -> None:
        self.matches: dict[str, Match] = {}
        feed.listen(self.changed)

    def changed(self, channels: list[Channel]) -> None:
        for channel in channels:
            match = self.matches.get(address_of(channel.fixed))
            if match is not None:
                match.wake()


def play_one(rest_url: str, broker: BrokerAddress, signed: SignedOffer, player: Player, store: Store,
             feed: ChannelFeed, woken: Wakers, gates: tuple[threading.Barrier, threading.Barrier]) -> None:  # fmt: skip
    """Accept (again, after a decline: the house was busy), wait for the join, play the match."""
    me = player.signer.public_key
    session = player.session = Timed(player, broker, channel_fixed(signed.offer, me, 1).app)
    session.session.connect(60.0)  # a broker slow to answer a crowd is waited for (paho keeps trying)
    session.wake = feed.wake
    with RestClient(rest_url) as client:
        own = RestChain(client, player.signer)
        connected, start = gates
        connected.wait(300)
        start.wait(300)
        player.accepted_at = time.perf_counter()
        for k in range(1, ACCEPTS + 1):
            fixed = channel_fixed(signed.offer, me, k)
            terms = ChannelTerms(channel_name(signed.offer.id, k), fixed, signed.offer.terms.rounds)
            store.remember_channel(channel_id(fixed), terms)
            address = address_of(fixed)
            session.listen_for_decline(channel_id(fixed), signed.offer.offerer)
            opened(own, fixed, player.signer, feed, address)
            feed.wait_for(lambda at=address: session.declined is not None or (
                (record := feed.channel(at)) is not None and record.status != FUNDING), 60)  # fmt: skip
            if session.declined is None:
                break
            player.declines += 1
            try:  # as chips accept does: the deposit comes back, and a busy house is asked again in a moment
                own.submit(tx.cancel(player.signer, fixed), "the cancel")
            except Rejected:  # joined first after all: played
                break
            time.sleep(1.0)
        connect = timed_connector(session)
        match = Match(signer=player.signer, terms=terms, store=store, chain=MatchChain(feed, own), connect=connect,
                      chooser=Immediate(Computer("random")), say=lambda _line: None,
                      pass_seconds=PLAYER_PASS_SECONDS)  # fmt: skip
        woken.matches[address] = match
        try:
            player.outcome = match.run(time_limit=MATCH_SECONDS)
        except Exception as error:  # a benchmark counts a failed match, it does not stop
            player.outcome = f"failed: {error}"


def opened(own: RestChain, fixed: Fixed, signer: Signer, feed: ChannelFeed, address: str) -> None:
    """Open the channel, as a player would again after a connection reset (a thousand at once overflow a listen
    queue): an open that landed all the same shows on the chain, and is not sent twice."""
    for _ in range(10):
        try:
            own.submit(tx.open_channel(signer, fixed), "the open")
            return
        except (Unavailable, TimedOut, Rejected):
            if feed.wait_for(lambda: feed.channel(address) is not None, 2.0):
                return
    raise TimeoutError("the open never committed")


def timed_connector(session: Timed) -> Connector:
    """The player's transport: its session, connected before the accept, handing what comes to the match."""

    def connect(on_message: Receiver, on_reconnect: Callable[[], None]) -> Timed:
        session.receiver, session.reconnected = on_message, on_reconnect
        return session

    return connect


def wait_for_offer(broker: BrokerAddress, offerer: str, seconds: float = 60) -> SignedOffer:
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        board = read_board(lambda receive: BrokerSession(broker, f"bench-look-{time.monotonic_ns()}", receive,
                                                         persistent=False), None)  # fmt: skip
        found = [s for s in board.offers if s.offer.offerer == offerer]
        if found:
            return found[0]
    raise SystemExit(f"chips_house: the house's offer did not show within {seconds:g} s")


def chips_ops(client: RestClient) -> dict[str, int]:
    """How many chips transactions of each op the chain holds (every block read)."""
    counted: collections.Counter[str] = collections.Counter()
    for block in client.blocks():
        for transaction in block.transactions:
            if transaction.family_name == FAMILY_NAME:
                counted[parse_payload(transaction.payload).NAME] += 1
    return {op: counted[op] for op in ("open", "join", "cancel", "conclude", "challenge", "respond", "checkpoint",
                                       "finalize")}  # fmt: skip


def peak_rss_mb(pid: int) -> float | None:
    """A running process's peak resident memory (``VmHWM``), in MB; None where /proc does not tell."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def tree_cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) a running process and its running descendants used so far: xo-devnet with its
    processors. From /proc; 0 for what it cannot read."""
    seconds, pending = 0.0, [pid]
    tick = os.sysconf("SC_CLK_TCK")
    while pending:
        current = pending.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            seconds += (int(fields[11]) + int(fields[12])) / tick  # utime and stime, fields 14 and 15 of stat
            for task in Path(f"/proc/{current}/task").iterdir():
                pending.extend(int(child) for child in (task / "children").read_text().split())
        except (OSError, IndexError, ValueError):
            continue
    return seconds


def total_chips(client: RestClient) -> int:
    """Every account's balance and every channel's holding."""
    total = 0
    for _address, data in client.list_state(NAMESPACE + ACCOUNT_TYPE):
        total += int(canonical.decode(data, "an account")["balance"])
    for address, data in client.list_state(NAMESPACE + CHANNEL_TYPE):
        channel = decode_channel(address, data)
        total += 0 if channel is None else channel.held
    return total


def summary(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 1),
        "p99": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 1),
        "max": round(ordered[-1], 1),
    }


if __name__ == "__main__":
    sys.exit(main())
