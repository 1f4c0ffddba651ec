"""Tournaments on ``xo-devnet``: four players in separate homes, who know nothing of each other but the tournament's
name, run a Swiss and a knockout to the end with ``chips tournament play --bot``, and the pool is paid by the split.

Each player has their own key directory (their home); the ledger's issuer gives each 100
chips. The organiser is a fifth key. After each tournament: it is closed, every round's
pairings hold a result, the payout is the split of the pool exact to the chip, each
player's balance is what they paid and won, the chips in accounts and pools add up to
what was issued (a tournament's channels hold match points, not chips), and each match
counts as one more game for each of its players in ``xo ratings``.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from chips_tp.family import ACCOUNT_TYPE, NAMESPACE, TOURNAMENT_TYPE
from chips_tp.state import decode_account
from chips_tp.tournament_payout import split
from chips_tp.tournament_state import decode_tournament
from tests.xo_devnet.e2e.conftest import fetch
from xo_core import canonical
from xo_devnet.spawn import DevnetProcess

PLAYERS = ("ann", "ben", "cat", "dan")
ISSUED = 100
TOURNAMENT_SECONDS = 240


class Homes:
    """One devnet, its broker, and a home (key directory) per player."""

    def __init__(self, devnet: DevnetProcess, root: Path) -> None:
        self.devnet, self.url, self.broker = devnet, devnet.rest_url, devnet.ready["broker_url"]
        self.homes = {who: root / who for who in (*PLAYERS, "org")}

    def command(self, who: str, *argv: str) -> list[str]:
        home = self.devnet.key_dir if who == "chips-issuer" else self.homes[who]
        return [sys.executable, "-m", "chips_cli.main", "--url", self.url, "--key-dir", str(home), "--username", who,
                *argv]  # fmt: skip

    def ok(self, who: str, *argv: str) -> str:
        done = subprocess.run(self.command(who, *argv), capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def state(self, prefix: str) -> dict[str, bytes]:
        found, url = {}, f"{self.url}/state?address={prefix}&limit=1000"
        while url:
            page = fetch(url)
            found.update({entry["address"]: base64.b64decode(entry["data"]) for entry in page["data"]})
            url = page.get("paging", {}).get("next")
        return found

    def chips(self) -> int:
        """Chips in every account and every tournament's pool."""
        accounts = self.state(NAMESPACE + ACCOUNT_TYPE)
        total = sum(decode_account(a, d, canonical.decode(d, "an account")["key"]).balance for a, d in accounts.items())
        pools = self.state(NAMESPACE + TOURNAMENT_TYPE)
        return total + sum(decode_tournament(a, d).pool for a, d in pools.items())

    def rated_games(self, cache: Path) -> dict[str, int]:
        """Each player's games in ``xo ratings --game chips``, read afresh (a cache of its own)."""
        command = [sys.executable, "-m", "xo_cli.main", "ratings", "--game", "chips", "--json", "--url", self.url]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False,
                              env={**os.environ, "XDG_CACHE_HOME": str(cache)})  # fmt: skip
        assert done.returncode == 0, done.stderr
        return {row["key"]: row["games"] for row in json.loads(done.stdout)["players"]}

    def balance(self, who: str) -> int:
        return json.loads(self.ok(who, "balance", "--json"))["balance"]


@pytest.fixture(scope="module")
def homes(tmp_path_factory) -> Iterator[Homes]:
    root = tmp_path_factory.mktemp("tournament")
    # A floor of 1 s (chips.min_challenge_seconds) lets rounds be short.
    with DevnetProcess(("--ephemeral", "--min-challenge", "1"), log_path=root / "devnet.log") as devnet:
        if not devnet.ready.get("broker_url"):
            pytest.skip("this xo-devnet runs no broker")
        homes = Homes(devnet, root)
        for who in (*PLAYERS, "org"):
            homes.ok(who, "keygen", who)
            key = (homes.homes[who] / f"{who}.pub").read_text().strip()
            homes.ok("chips-issuer", "issue", key, str(ISSUED))
        yield homes


@pytest.mark.parametrize(("name", "style", "levels"), [
    ("spring", ("--game", "xo", "--format", "swiss", "--rounds", "3"), ("random", "heuristic", "random", "perfect")),
    ("cup", ("--game", "xo", "--format", "knockout"), ("random", "random", "perfect", "heuristic")),
    ("rps cup", ("--game", "rps", "--first-to", "2", "--format", "knockout"), ("random",) * 4),
])  # fmt: skip
def test_four_bots_run_a_tournament_to_the_end_and_the_pool_is_paid_by_the_split(homes, name, style, levels, tmp_path):
    issued = homes.chips()
    rated_before = homes.rated_games(tmp_path / "before")
    before = {who: homes.balance(who) for who in PLAYERS}
    homes.ok("org", "tournament", "create", name, *style, "--buy-in", "10", "--players", "2..4",
             "--join-for", "5m", "--round-for", "30s", "--prizes", "60,30,10")  # fmt: skip
    for who in PLAYERS:
        assert f"you joined tournament {name!r}, paying 10 chips" in homes.ok(who, "tournament", "join", name)
    assert name in homes.ok("ann", "tournament", "list")
    bots = [
        subprocess.Popen(homes.command(who, "tournament", "play", name, "--bot", level, "--broker", homes.broker),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for who, level in zip(PLAYERS, levels, strict=True)
    ]  # fmt: skip
    outputs = [bot.communicate(timeout=TOURNAMENT_SECONDS)[0] for bot in bots]
    for bot, output in zip(bots, outputs, strict=True):
        assert bot.returncode == 0, output
    shown = json.loads(homes.ok("org", "tournament", "show", name, "--json"))
    assert shown["status"] == "closed" and shown["pool"] == 0
    assert shown["first_to"] == (2 if "rps" in style else 0)
    assert len(shown["pairings"]) == shown["rounds"] and shown["rounds"] in (2, 3)
    assert all(board["result"] in ("white", "black", "draw", "bye") for r in shown["pairings"] for board in r)
    paid = [entry["amount"] for entry in shown["payout"]]
    assert paid == split(40, (60, 30, 10), 4) == [24, 12, 4]
    ranked = [line["player"]["key"] for line in shown["standings"]]
    assert [entry["key"] for entry in shown["payout"]] == ranked[:3]
    keys = {(homes.homes[who] / f"{who}.pub").read_text().strip(): who for who in PLAYERS}
    won = {keys[entry["key"]]: entry["amount"] for entry in shown["payout"]}
    assert {who: homes.balance(who) for who in PLAYERS} == {who: before[who] - 10 + won.get(who, 0) for who in PLAYERS}
    assert homes.chips() == issued
    # every match counts as one game for each of its players in xo ratings
    played: dict[str, int] = {}
    for board in (b for r in shown["pairings"] for b in r if b["black"] and b["result"] != "unplayed"):
        for seat in ("white", "black"):
            played[board[seat]["key"]] = played.get(board[seat]["key"], 0) + 1
    rated = homes.rated_games(tmp_path / "after")
    assert {key: rated.get(key, 0) - rated_before.get(key, 0) for key in rated} == played
    assert "standings:" in outputs[0] and "paid:" in outputs[0]


def at_a_terminal(command: list[str], answers: dict[str, Iterator[str]], seconds: float) -> tuple[int, str]:
    """Run ``command`` with a pseudo-terminal for its standard streams, as a person at a terminal would, typing
    the next of ``answers[prompt]`` each time ``prompt`` comes up; its exit code and all it wrote."""
    main, side = pty.openpty()
    process = subprocess.Popen(command, stdin=side, stdout=side, stderr=side, start_new_session=True)
    os.close(side)
    shown, typed, ends = "", 0, time.monotonic() + seconds
    try:
        while time.monotonic() < ends:
            ready, _, _ = select.select([main], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(main, 4096)
                except OSError:  # the command exited: the terminal is gone
                    break
                if not chunk:
                    break
                shown += chunk.decode("utf-8", "replace")
            prompts = sorted((shown.find(p, typed), p) for p in answers if shown.find(p, typed) >= 0)
            if prompts:
                at, prompt = prompts[0]
                os.write(main, next(answers[prompt]).encode() + b"\n")
                typed = at + len(prompt)
        return process.wait(timeout=max(ends - time.monotonic(), 1)), shown
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(main)


def test_a_person_at_a_terminal_plays_their_match_typing_throws(homes):
    homes.ok("org", "tournament", "create", "by hand", "--game", "rps", "--first-to", "2", "--format", "knockout",
             "--buy-in", "5", "--players", "2..2", "--join-for", "5m", "--round-for", "30s",
             "--prizes", "100")  # fmt: skip
    for who in ("ann", "ben"):
        homes.ok(who, "tournament", "join", "by hand")
    bot = subprocess.Popen(
        homes.command("ben", "tournament", "play", "by hand", "--bot", "random", "--broker", homes.broker),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    code, shown = at_a_terminal(homes.command("ann", "tournament", "play", "by hand", "--broker", homes.broker),
                                {"your throw": itertools.repeat("rock")}, TOURNAMENT_SECONDS)  # fmt: skip
    said = bot.communicate(timeout=TOURNAMENT_SECONDS)[0]
    assert code == 0, shown
    assert bot.returncode == 0, said
    assert "your throw" in shown and ("you threw rock" in shown or "you revealed rock" in shown), shown
    tournament = json.loads(homes.ok("org", "tournament", "show", "by hand", "--json"))
    assert tournament["status"] == "closed" and tournament["pairings"][0][0]["result"] in ("white", "black", "draw")
    assert "standings:" in shown and "paid:" in shown


def test_a_person_at_a_terminal_plays_every_round_of_a_swiss_typing_spaces(homes):
    homes.ok("org", "tournament", "create", "xo by hand", "--game", "xo", "--format", "swiss", "--rounds", "2",
             "--buy-in", "5", "--players", "3..3", "--join-for", "5m", "--round-for", "30s",
             "--prizes", "100")  # fmt: skip
    for who in ("ann", "ben", "cat"):
        homes.ok(who, "tournament", "join", "xo by hand")
    bots = [subprocess.Popen(homes.command(who, "tournament", "play", "xo by hand", "--bot", "random", "--broker",
                                           homes.broker), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for who in ("ben", "cat")]  # fmt: skip
    spaces = itertools.cycle("519372468")  # a taken space is asked again at a terminal
    code, shown = at_a_terminal(homes.command("ann", "tournament", "play", "xo by hand", "--broker", homes.broker),
                                {"(1-9): ": spaces}, TOURNAMENT_SECONDS)  # fmt: skip
    said = [bot.communicate(timeout=TOURNAMENT_SECONDS)[0] for bot in bots]
    assert code == 0, shown
    assert all(bot.returncode == 0 for bot in bots), said
    tournament = json.loads(homes.ok("org", "tournament", "show", "xo by hand", "--json"))
    assert tournament["status"] == "closed"
    ann = (homes.homes["ann"] / "ann.pub").read_text().strip()
    matches = [board for pairings in tournament["pairings"] for board in pairings
               if board["black"] and ann in (board["white"]["key"], board["black"]["key"])]  # fmt: skip
    assert matches and all(b["result"] in ("white", "black", "draw") for b in matches)
    assert shown.count("the channel is concluded") == len(matches), shown
