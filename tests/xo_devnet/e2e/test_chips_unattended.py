"""chips left running unattended on xo-devnet: a player who never types, and a ledger stopped and started again.

A ``chips play`` on a pseudo-terminal that nobody types at plays against ``chips bot
--patience 1``: the bot challenges the idle player, whose client plays the computer's
move for them in time (or, with ``--no-auto-respond``, loses the challenge and says what
it cost). Then ``chips watch --defend`` and a ``chips bot`` keep running while
xo-devnet (with a data dir, on a fixed port) is stopped with Ctrl-C and started again
mid-match, bob's own bot not running: the challenge raised after the restart is answered
by bob's watchtower, bob's bot started then resumes from his store, and the match
concludes. Chips are conserved throughout.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest

from chips_tp.channel import Fixed, channel_id
from chips_tp.family import channel_address
from chips_tp.state import Channel, decode_channel
from tests.mosquitto import running_mosquitto
from tests.xo_devnet.e2e.test_chips_play import MATCH_SECONDS, Net, Output, finished, open_and_join
from xo_devnet.spawn import DevnetProcess


class Terminal:
    """A command on a pseudo-terminal nobody types at; what it prints is read on a thread."""

    def __init__(self, argv: list[str]) -> None:
        self.master, slave = os.openpty()
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave)
        os.close(slave)
        self.chunks: list[bytes] = []
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:  # the other side closed: the command ended
                return
            if not data:
                return
            with self.changed:
                self.chunks.append(data)
                self.changed.notify_all()

    def wait_for(self, wanted: bytes, seconds: float) -> None:
        """Until the command has printed ``wanted`` (it fails after ``seconds``, or if the command ended first)."""
        with self.changed:
            seen = self.changed.wait_for(lambda: wanted in b"".join(self.chunks) or self.process.poll() is not None,
                                         seconds)  # fmt: skip
            assert seen and wanted in b"".join(self.chunks), b"".join(self.chunks)

    def finish(self, timeout: float) -> tuple[int, str]:
        try:
            code = self.process.wait(timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            self.reader.join(5)
            os.close(self.master)
        return code, b"".join(self.chunks).decode("utf-8", "replace")


@pytest.fixture(scope="module")
def net(tmp_path_factory) -> Iterator[Net]:
    workdir = tmp_path_factory.mktemp("chips-unattended")
    # A floor of 1 s (chips.min_challenge_seconds), so the idle player's challenges last seconds, not minutes.
    devnet = DevnetProcess(("--ephemeral", "--min-challenge", "1"), log_path=workdir / "devnet.log")
    with devnet, running_mosquitto(workdir) as mosquitto:
        yield Net(devnet, f"mqtt://127.0.0.1:{mosquitto.port}")


def record_of(net: Net, fixed: Fixed) -> Channel:
    address = channel_address(channel_id(fixed))
    return decode_channel(address, net.state(address)[address])


def test_an_idle_player_at_a_terminal_answers_the_challenge_with_the_computers_move_in_time(net):
    issued = net.total_chips()
    fixed = open_and_join(net, "idle", "rps", "--rounds", "1", "--challenge", "8")
    person = Terminal(net.command("bob", "play", "idle", "--broker", net.broker))
    alice = net.bot("alice", "idle", "--patience", "1")
    said_by_alice = finished(alice)
    code, said = person.finish(MATCH_SECONDS)
    assert code == 0, said
    assert "CHALLENGED YOU" in said and "[" in said and "s left]" in said  # said loudly, counted down
    assert "the computer plays" in said and "answered alice's challenge on chain" in said
    assert "concluded" in said and "concluded" in said_by_alice
    address = channel_address(channel_id(fixed))
    assert net.transactions_touching(address) == ["open", "join", "challenge", "respond", "conclude"]
    assert net.total_chips() == issued


def test_with_no_auto_respond_the_idle_player_loses_the_challenge_and_is_told_what_it_cost(net):
    issued = net.total_chips()
    fixed = open_and_join(net, "unanswered", "xo", "--rounds", "1", "--challenge", "3")
    person = Terminal(net.command("bob", "play", "unanswered", "--broker", net.broker, "--no-auto-respond"))
    person.wait_for(b"playing channel 'unanswered'", MATCH_SECONDS)  # up and reading the chain before the challenge
    alice = net.bot("alice", "unanswered", "--patience", "1")
    finished(alice)
    code, said = person.finish(MATCH_SECONDS)
    assert code == 0, said
    record = record_of(net, fixed)
    paid = record.payout[1]
    assert paid < 50
    assert "nobody plays it for you" in said and "the computer plays" not in said
    assert "YOU LOST THE CHALLENGE" in said and f"{paid} to you" in said and f"{50 - paid} chips down" in said
    assert "no longer asked: the channel is finalized" in said
    assert net.transactions_touching(channel_address(channel_id(fixed))) == ["open", "join", "challenge", "finalize"]
    assert net.total_chips() == issued


def wait_until(condition, seconds: float, what: str) -> None:
    ends = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < ends, f"timed out waiting for {what}"
        time.sleep(0.2)


def test_watch_defend_and_a_bot_outlive_the_ledger_stopped_and_started_again_mid_match(tmp_path, closed_port):
    data_dir, key_dir, port = tmp_path / "chain", tmp_path / "keys", closed_port  # held: the REST API comes back there
    arguments = ("--data-dir", str(data_dir), "--rest-api", f"127.0.0.1:{port}")
    first = DevnetProcess(arguments, key_dir=key_dir, log_path=tmp_path / "devnet.log").start()
    second = DevnetProcess(arguments, key_dir=key_dir, log_path=tmp_path / "devnet.log")
    processes: list[subprocess.Popen[str]] = []
    try:
        with running_mosquitto(tmp_path) as mosquitto:
            net = Net(first, f"mqtt://127.0.0.1:{mosquitto.port}")
            issued = net.total_chips()
            fixed = open_and_join(net, "kept", "xo", "--rounds", "1", "--challenge", "20")
            ident = channel_id(fixed)
            tower = Output(subprocess.Popen(net.command("bob", "watch", "--defend", "--poll", "0.5"),
                                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))  # fmt: skip
            alice = Output(net.bot("alice", "kept", "--patience", "4"))  # bob's bot is not running: his watchtower is
            processes += [tower.process, alice.process]
            wait_until(lambda: net.store_turn("alice", ident) >= 1, 30, "alice's first move")
            first.process.send_signal(signal.SIGINT)  # Ctrl-C, before alice's patience runs out
            assert first.process.wait(30) == 0
            for away in (tower, alice):  # both find the REST API gone before it comes back
                assert away.wait_until(lambda lines: any("cannot reach the REST API" in line for line in lines), 30)
            second.start()
            wait_until(lambda: "respond" in net.transactions_touching(channel_address(ident)), 60,
                       "the watchtower's answer")  # fmt: skip
            again = net.bot("bob", "kept")
            processes.append(again)
            said_by_alice, said_by_bob = "\n".join(alice.finished()), finished(again)
            assert tower.process.poll() is None  # still watching
            tower.process.send_signal(signal.SIGTERM)
            said_by_tower = tower.stopped()
            assert tower.process.returncode == 143
            assert "cannot reach the REST API" in said_by_alice and "retrying" in said_by_alice
            assert said_by_alice.index("cannot reach") < said_by_alice.index("you challenged bob")
            assert said_by_tower.count("cannot reach the REST API") == 1 and "answers again" in said_by_tower
            assert "answered" in said_by_tower and "resuming channel 'kept'" in said_by_bob
            assert "concluded" in said_by_alice and "concluded" in said_by_bob
            ops = net.transactions_touching(channel_address(ident))
            assert ops[:4] == ["open", "join", "challenge", "respond"] and ops[-1] == "conclude"
            assert net.total_chips() == issued
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
        first.close()
        second.close()
