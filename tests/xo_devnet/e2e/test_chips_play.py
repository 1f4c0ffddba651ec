"""Matches for chips on ``xo-devnet``: two ``chips bot`` processes play through a real broker, the chain referees.

Alice and Bob hold the 1,000 chips xo-devnet's genesis gave them. Every match is
checked on chain: three transactions touch the channel (open with the opener's
deposit, join with the joiner's, conclude), the payout is the final state's balances, and the
chips in all accounts and channels still add up to what was issued.
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from chips_client import transactions as tx
from chips_client.channels import nonce_of
from chips_client.messages import encode_message, topic
from chips_client.store import default_path
from chips_tp import xo_app
from chips_tp.apps import APPS
from chips_tp.channel import Fixed, channel_id
from chips_tp.channel_state import State, decode_state
from chips_tp.family import ACCOUNT_TYPE, CHANNEL_TYPE, NAMESPACE, channel_address
from chips_tp.state import decode_account, decode_channel
from client_core.broker import BrokerAddress, BrokerSession
from tests.xo_devnet.e2e.conftest import fetch
from xo_core import canonical
from xo_core.keyfiles import load_signer
from xo_devnet.genesis import OPENING_CHIPS
from xo_devnet.spawn import DevnetProcess

MATCH_SECONDS = 90


class Net:
    """One devnet and its broker, and the ``chips`` command pointed at both."""

    def __init__(self, devnet: DevnetProcess, broker: str) -> None:
        self.devnet, self.url, self.key_dir, self.broker = devnet, devnet.rest_url, devnet.key_dir, broker

    def command(self, who: str, *argv: str) -> list[str]:
        return [sys.executable, "-m", "chips_cli.main", "--url", self.url, "--key-dir", str(self.key_dir),
                "--username", who, *argv]  # fmt: skip

    def chips(self, who: str, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.command(who, *argv), capture_output=True, text=True, timeout=60, check=False)

    def ok(self, who: str, *argv: str) -> str:
        done = self.chips(who, *argv)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def bot(self, who: str, channel: str, *extra: str) -> subprocess.Popen[str]:
        argv = self.command(who, "bot", channel, "--broker", self.broker, *extra)
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def state(self, prefix: str) -> dict[str, bytes]:
        found, url = {}, f"{self.url}/state?address={prefix}&limit=1000"
        while url:
            page = fetch(url)
            found.update({entry["address"]: base64.b64decode(entry["data"]) for entry in page["data"]})
            url = page.get("paging", {}).get("next")
        return found

    def total_chips(self) -> int:
        """Every account's balance and every channel's holding."""
        accounts = self.state(NAMESPACE + ACCOUNT_TYPE)
        total = sum(decode_account(a, d, canonical.decode(d, "an account")["key"]).balance for a, d in accounts.items())
        return total + sum(decode_channel(a, d).held for a, d in self.state(NAMESPACE + CHANNEL_TYPE).items())

    def transactions_touching(self, address: str) -> list[str]:
        """The ops of every committed transaction that writes ``address``, oldest first (batches do not count)."""
        ops, url = [], f"{self.url}/blocks?limit=100"
        while url:
            page = fetch(url)
            for block in page["data"]:
                for batch in block["batches"]:
                    for transaction in batch["transactions"]:
                        if address in transaction["header"]["outputs"]:
                            ops.append(canonical.decode(base64.b64decode(transaction["payload"]), "a payload")["op"])
            url = page.get("paging", {}).get("next")
        return ops[::-1]

    def key(self, who: str) -> str:
        return (self.key_dir / f"{who}.pub").read_text().strip()

    def store_turn(self, who: str, channel: bytes) -> int:
        path = default_path(self.key_dir, self.key(who))
        if not path.exists():
            return -1
        with sqlite3.connect(path, timeout=5) as db:
            row = db.execute("SELECT max(turn) FROM states WHERE channel = ?", (channel.hex(),)).fetchone()
        return -1 if row[0] is None else row[0]

    def final_state(self, who: str, channel: bytes, app: str) -> State:
        with sqlite3.connect(default_path(self.key_dir, self.key(who))) as db:
            (data,) = db.execute(
                "SELECT data FROM states WHERE channel = ? ORDER BY turn DESC LIMIT 1", (channel.hex(),)
            ).fetchone()
        return decode_state(data, APPS[app].decode)


@pytest.fixture(scope="module")
def net(tmp_path_factory) -> Iterator[Net]:
    workdir = tmp_path_factory.mktemp("chips-play")
    # A floor of 1 s (chips.min_challenge_seconds) lets the silent and cheating players' deadlines pass at once.
    with DevnetProcess(("--ephemeral", "--min-challenge", "1"), log_path=workdir / "devnet.log") as devnet:
        broker = devnet.ready.get("broker_url")
        if broker:
            yield Net(devnet, broker)
            return
        from tests.mosquitto import running_mosquitto  # noqa: PLC0415 - until xo-devnet embeds one

        with running_mosquitto(workdir) as mosquitto:
            yield Net(devnet, f"mqtt://127.0.0.1:{mosquitto.port}")


def finished(process: subprocess.Popen[str]) -> str:
    output, _ = process.communicate(timeout=MATCH_SECONDS)
    assert process.returncode == 0, output
    return output


class Output:
    """A process's lines, read on a thread as they come, so a test can wait for one while the process runs."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process, self.lines, self.changed = process, [], threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()

    def wait_until(self, seen: Callable[[list[str]], bool], seconds: float) -> bool:
        """Whether ``seen`` holds for the lines within ``seconds`` (False at once if the process ended without it)."""
        with self.changed:
            return self.changed.wait_for(lambda: seen(self.lines) or self.process.poll() is not None, seconds) and (
                seen(self.lines)
            )

    def wait_for(self, wanted: str, seconds: float) -> bool:
        """Whether the line ``wanted`` came within ``seconds``."""
        return self.wait_until(lambda lines: wanted in lines, seconds)

    def finished(self) -> list[str]:
        assert self.process.wait(MATCH_SECONDS) == 0, "\n".join(self.lines)
        self.reader.join(MATCH_SECONDS)
        return self.lines

    def stopped(self) -> str:
        """Everything the process said, once it ended (after a SIGTERM, say)."""
        self.process.wait(MATCH_SECONDS)
        self.reader.join(MATCH_SECONDS)
        return "".join(line + "\n" for line in self.lines)


def open_and_join(net: Net, name: str, game: str, *extra: str) -> Fixed:
    net.ok("alice", "open", name, "--with", "bob", "--game", game, "--stake", "10", "--deposit", "50", *extra)
    assert "open to you" in net.ok("bob", "list")
    net.ok("bob", "join", name)
    rounds = int(extra[extra.index("--rounds") + 1]) if "--rounds" in extra else 3
    duration = int(extra[extra.index("--challenge") + 1]) if "--challenge" in extra else 3600
    return Fixed((net.key("alice"), net.key("bob")), game, 10, (50, 50), duration, nonce_of(name, rounds))


@pytest.mark.parametrize("game", ["xo", "rps"])
def test_a_best_of_three_costs_three_transactions_and_pays_the_final_state(net, game):
    issued = net.total_chips()
    assert issued == OPENING_CHIPS * 2
    before = {who: int(net.ok(who, "balance").split(": ")[1].split()[0]) for who in ("alice", "bob")}
    fixed = open_and_join(net, f"best-of-3-{game}", game)
    alice, bob = net.bot("alice", f"best-of-3-{game}"), net.bot("bob", f"best-of-3-{game}", "--level", "random")
    finished(alice), finished(bob)
    ident = channel_id(fixed)
    final = net.final_state("alice", ident, game)
    assert final.final and final == net.final_state("bob", ident, game)
    record = decode_channel("", net.state(channel_address(ident))[channel_address(ident)])
    assert record.status == "closed" and record.payout == final.balances
    after = {who: int(net.ok(who, "balance").split(": ")[1].split()[0]) for who in ("alice", "bob")}
    assert after == {"alice": before["alice"] - 50 + final.balances[0], "bob": before["bob"] - 50 + final.balances[1]}
    assert net.transactions_touching(channel_address(ident)) == ["open", "join", "conclude"]
    assert net.total_chips() == issued
    assert len(json.loads(net.ok("alice", "show", f"best-of-3-{game}", "--json"))["played"]) == 3


def test_a_silent_opponent_is_challenged_and_finalize_pays_the_last_mover(net):
    fixed = open_and_join(net, "silent", "xo", "--challenge", "1")
    alice = net.bot("alice", "silent", "--patience", "0.5")
    output = finished(alice)
    assert "you challenged bob at turn 1" in output and "finalized" in output
    record = decode_channel("", net.state(channel_address(channel_id(fixed)))[channel_address(channel_id(fixed))])
    assert record.payout == (60, 40)
    again = net.chips("bob", "finalize", "silent")
    assert again.returncode == 0 and "closed already" in again.stdout


def test_an_invalid_state_is_refused_and_the_last_valid_one_wins_the_challenge(net):
    fixed = open_and_join(net, "cheated", "xo", "--challenge", "1")
    session = BrokerSession(BrokerAddress.parse(net.broker), "cheater", lambda _t, _p: None)
    session.connect(10)  # before alice starts: her patience has only the forged state's publish to cover
    alice = net.bot("alice", "cheated", "--patience", "2")
    ident = channel_id(fixed)
    deadline = time.monotonic() + 30
    while net.store_turn("alice", ident) < 1:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    bob = load_signer(net.key_dir, "bob")
    crosses = net.final_state("alice", ident, "xo").app.crosses
    nought = next(bit for bit in (256, 1, 16) if not bit & crosses)
    greedy = State(ident, 2, False, xo_app.XoData("OPlaying", crosses, nought), (0, 100))
    session.publish(topic(ident, net.key("alice")), encode_message(tx.signed_state(fixed, greedy, bob)), 10)
    session.close()
    output = finished(alice)
    assert "refused a state from bob" in output and "finalized" in output
    record = decode_channel("", net.state(channel_address(ident))[channel_address(ident)])
    assert record.payout == (60, 40)


def test_a_player_killed_mid_match_resumes_from_its_store(net):
    fixed = open_and_join(net, "killed", "xo", "--rounds", "2")
    alice, bob = net.bot("alice", "killed"), net.bot("bob", "killed", "--level", "random")
    deadline = time.monotonic() + 30
    while net.store_turn("bob", channel_id(fixed)) < 4:
        assert time.monotonic() < deadline and bob.poll() is None
        time.sleep(0.01)
    os.kill(bob.pid, signal.SIGKILL)
    bob.wait()
    again = net.bot("bob", "killed", "--level", "random")
    finished(alice), finished(again)
    ident = channel_id(fixed)
    assert net.final_state("bob", ident, "xo") == net.final_state("alice", ident, "xo")
    assert net.transactions_touching(channel_address(ident)) == ["open", "join", "conclude"]


def test_each_key_has_a_store_of_its_own_that_only_its_owner_reads(net):
    net.ok("alice", "list")  # opens (makes) alice's store, whichever tests this worker ran before
    assert default_path(net.key_dir, net.key("alice")) != default_path(net.key_dir, net.key("bob"))
    assert Path(default_path(net.key_dir, net.key("alice"))).stat().st_mode & 0o777 == 0o600


def test_chips_play_reads_the_moves_from_a_pipe(net):
    fixed = open_and_join(net, "piped", "rps")
    alice = subprocess.Popen(
        net.command("alice", "play", "piped", "--broker", net.broker), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    bob = net.bot("bob", "piped")
    output, _ = alice.communicate("rock\npaper\nscissors\n", timeout=MATCH_SECONDS)
    assert alice.returncode == 0, output
    finished(bob)
    final = net.final_state("alice", channel_id(fixed), "rps")
    assert final.final and final.app.round == 3 and "concluded" in output
    shown = json.loads(net.ok("bob", "show", "piped", "--json"))
    assert [(r["round"], r["opener"]) for r in shown["played"]] == [(1, "rock"), (2, "paper"), (3, "scissors")]
    assert shown["status"] == "closed" and shown["latest"]["final"] is True
    assert "round 3 of 3: you threw scissors, bob " in net.ok("alice", "show", "piped")


def test_balance_names_a_player_by_public_key_and_says_it_in_json(net):
    shown = json.loads(net.ok("alice", "balance", net.key("bob"), "--json"))
    assert shown["key"] == net.key("bob") and shown["name"] == "bob" and isinstance(shown["balance"], int)


def test_only_an_issuer_issues_and_a_refusal_is_exit_1_with_the_validators_reason(net):
    refused = net.chips("alice", "issue", "alice", "5")
    assert refused.returncode == 1 and "chips.issuers" in refused.stderr
    assert "issued 5 chips to alice" in net.ok("chips-issuer", "issue", "alice", "5")
    net.ok("alice", "transfer", "chips-issuer", "5")  # the total stays what genesis issued, for the other tests


def test_an_opener_who_never_moves_is_challenged_at_turn_0_and_finalize_returns_both_deposits(net):
    before = {who: int(net.ok(who, "balance").split(": ")[1].split()[0]) for who in ("alice", "bob")}
    fixed = open_and_join(net, "unplayed", "xo", "--challenge", "1")
    refused = net.chips("alice", "challenge", "unplayed")
    assert refused.returncode == 1 and "the first move in 'unplayed' is yours" in refused.stderr
    assert "challenged alice at turn 0" in net.ok("bob", "challenge", "unplayed")
    address = channel_address(channel_id(fixed))
    deadline = time.monotonic() + 30
    while (done := net.chips("bob", "finalize", "unplayed")).returncode != 0:
        assert "left to answer it" in done.stderr and time.monotonic() < deadline, done.stderr
        time.sleep(0.5)
    assert "finalized channel 'unplayed': paid you 50, alice 50" in done.stdout
    assert decode_channel(address, net.state(address)[address]).payout == (50, 50)
    after = {who: int(net.ok(who, "balance").split(": ")[1].split()[0]) for who in ("alice", "bob")}
    assert after == before
    assert net.transactions_touching(address) == ["open", "join", "challenge", "finalize"]


def test_chips_watch_defend_answers_a_challenge_while_no_match_runs_in_the_block_it_lands_in(net):
    fixed = open_and_join(net, "watched", "xo", "--challenge", "60")
    address = channel_address(channel_id(fixed))
    tower = subprocess.Popen(  # a minute between reads: the challenge's block wakes it, well within the 30 s below
        net.command("bob", "watch", "--defend", "--poll", "60"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    alice = net.bot("alice", "watched", "--patience", "0.5")
    try:
        deadline = time.monotonic() + 30
        while (record := decode_channel(address, net.state(address)[address])).turn < 2:
            assert time.monotonic() < deadline and tower.poll() is None
            time.sleep(0.2)
        assert record.challenge is None or record.challenge.challenger == net.key("alice")
    finally:
        for process in (alice, tower):
            process.terminate()
    output, _ = tower.communicate(timeout=30)
    alice.communicate(timeout=30)
    assert "channel 'watched' (xo with alice): challenged by alice" in output
    assert tower.returncode == 143


#: What no line for a person holds: a participant's number, a position of the specification, a bare Unix time.
NEVER = re.compile(r"participant [01]|XPlaying|OPlaying|PlayAgainMe|RoundProposed|RoundAccepted|\bReveal\b|"
                   r"\bStart\b|Victory|\bDraw\b|\b1\d{9}\b")  # fmt: skip


def test_every_line_of_play_bot_show_and_watch_is_in_words_with_names_winners_and_the_score(net):
    tower = Output(subprocess.Popen(net.command("bob", "watch", "--poll", "0.3"), stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True))  # fmt: skip
    try:
        open_and_join(net, "words-xo", "xo", "--rounds", "2")
        running = "channel 'words-xo' (xo with alice): running"
        assert tower.wait_until(lambda lines: any(running in line for line in lines), 30), tower.lines  # then play
        xo = {"alice": net.bot("alice", "words-xo"), "bob": net.bot("bob", "words-xo", "--level", "random")}
        said = {f"xo {who}": finished(process) for who, process in xo.items()}
        open_and_join(net, "words-rps", "rps", "--rounds", "2")
        alice = subprocess.Popen(
            net.command("alice", "play", "words-rps", "--broker", net.broker), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        bob = net.bot("bob", "words-rps")
        said["rps alice"], _ = alice.communicate("rock\npaper\n", timeout=MATCH_SECONDS)
        assert alice.returncode == 0, said["rps alice"]
        said["rps bob"] = finished(bob)
        for game in ("xo", "rps"):
            for who in ("alice", "bob"):
                said[f"show {game} {who}"] = net.ok(who, "show", f"words-{game}")
        said["list bob"] = net.ok("bob", "list")
        last_close = "channel 'words-rps' (rps with alice): closed, paid you "
        assert tower.wait_until(lambda lines: any(last_close in line for line in lines), 30), tower.lines
    finally:
        tower.process.terminate()
    said["watch bob"] = tower.stopped()
    for what, output in said.items():
        lines = output.splitlines()
        assert lines and [line for line in lines if NEVER.search(line)] == [], what
    for who, other in (("alice", "bob"), ("bob", "alice")):
        for game, noun in (("xo", "game"), ("rps", "round")):
            text = said[f"{game} {who}"]
            assert other in text and "you " in text, text
            for number in (1, 2):
                assert re.search(rf"(won {noun} {number} of 2|{noun} {number} of 2 is a (draw|tie))", text), text
            assert re.search(r"(you lead|leads|level at) \d-\d", text), text
            assert re.search(r"concluded: paid (you \d+, \w+ \d+); (you|alice|bob) won the match \d-\d|the match is "
                             r"drawn \d-\d", text), text  # fmt: skip
            shown = said[f"show {game} {who}"]
            assert "on chain: closed, paid you " in shown and ", by agreement;" in shown, shown
            assert "block " in shown and ("you opened the channel" if who == "alice" else "alice opened the channel") \
                in shown and "closed the channel by agreement (conclude)" in shown  # fmt: skip
            assert f"{noun} 1 of 2: " in shown and f"{noun} 2 of 2: " in shown
    assert "you threw rock" in said["show rps alice"] and "alice threw rock" in said["show rps bob"]
    assert "      A   B   C" in said["show xo alice"]  # the final boards drawn as xo play draws them
    watched = said["watch bob"]
    assert "channel 'words-xo' (xo with alice): running" in watched
    assert "channel 'words-xo' (xo with alice): closed, paid you " in watched
