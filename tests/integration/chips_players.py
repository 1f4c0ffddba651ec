"""The `chips` command as the integration tests drive it: a separate process per command, with a player's own key.

Only the command line contract is used (subcommands, flags, exit codes, JSON output), so the tests hold for any
REST API the suite is pointed at. A match is two processes (`chips bot`, `chips play`) talking through a broker.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.integration.players import COMMAND_SLACK_SECONDS, OK, WAIT_SECONDS, Outcome, Player, console_script
from tests.integration.rps_players import finish

# A whole match: a few commits (a conclude, or a challenge and a finalize) and the moves through the broker.
MATCH_SECONDS = 3 * WAIT_SECONDS
_CLIENT_ENVIRONMENT = ("XO_URL", "XO_AUTH_USER", "XO_AUTH_PASSWORD", "XO_USERNAME", "XO_KEY_DIR", "XO_BROKER")


def chips_run(command: list[str], seconds: float = WAIT_SECONDS, stdin: str | None = None) -> Outcome:
    """Run one `chips` command to its end within ``seconds`` (plus the slack any command gets)."""
    process = chips_start(command, stdin=stdin is not None)
    try:
        out, err = process.communicate(stdin, timeout=seconds + COMMAND_SLACK_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"`{' '.join(command)}` did not finish in time:\n{out}{err}") from None
    return Outcome(tuple(command[1:]), process.returncode, out, err)


def chips_start(command: list[str], stdin: bool = False) -> subprocess.Popen[str]:
    environment = {name: value for name, value in os.environ.items() if name not in _CLIENT_ENVIRONMENT}
    return subprocess.Popen(
        command, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=environment,
    )  # fmt: skip


@dataclass(frozen=True)
class ChipsIssuer:
    """A key in the network's chips.issuers setting (its private key file), creating chips with `chips issue`."""

    key_file: Path
    url: str

    def issue(self, public_key: str, amount: int) -> dict[str, object]:
        where = ["--url", self.url, "--username", self.key_file.stem, "--key-dir", str(self.key_file.parent)]
        command = [console_script("chips"), "issue", public_key, str(amount), "--json", *where]
        outcome = chips_run(command)
        issued = outcome.json()
        assert isinstance(issued, dict), issued
        return issued


@dataclass(frozen=True)
class ChipsPlayer:
    """A player of the integration suite (their key made by `xo keygen`) running `chips` against ``url``."""

    player: Player
    url: str
    broker: str

    @property
    def public_key(self) -> str:
        return self.player.public_key

    def command(self, *args: str) -> list[str]:
        where = ["--url", self.url, "--username", self.player.name, "--key-dir", str(self.player.key_dir)]
        return [console_script("chips"), *args, *where]

    def run(self, *args: str, seconds: float = WAIT_SECONDS + COMMAND_SLACK_SECONDS) -> Outcome:
        return chips_run(self.command(*args), seconds)

    def ok(self, *args: str) -> str:
        outcome = self.run(*args)
        assert outcome.code == OK, f"expected chips to succeed:\n{outcome}"
        return outcome.stdout

    def balance(self) -> int:
        shown = self.run("balance", "--json").json()
        assert isinstance(shown, dict), shown
        return int(shown["balance"])

    def show(self, channel: str) -> dict[str, object]:
        shown = self.run("show", channel, "--json").json()
        assert isinstance(shown, dict), shown
        return shown

    def bot(self, channel: str, *extra: str) -> subprocess.Popen[str]:
        """`chips bot CHANNEL` through the broker, running until its match ends."""
        return chips_start(self.command("bot", channel, "--broker", self.broker, *extra))

    def play(self, channel: str, moves: str) -> Outcome:
        """`chips play CHANNEL` with ``moves`` piped in, one a line, to its end."""
        return chips_run(self.command("play", channel, "--broker", self.broker), MATCH_SECONDS, stdin=moves)


def ended(process: subprocess.Popen[str]) -> str:
    """The output of a match's process, which must end well within a match's time."""
    outcome = finish(process, MATCH_SECONDS)
    assert outcome.code == OK, f"expected the match to end well:\n{outcome}"
    return outcome.stdout


def opened(opener: ChipsPlayer, joiner: ChipsPlayer, channel: str, game: str, *terms: str) -> dict[str, object]:
    """``opener`` opens ``channel`` with ``joiner``, 10 chips a game and 50 each, who joins it: as `show` has it."""
    opener.ok("open", channel, "--with", joiner.public_key, "--game", game, "--stake", "10", "--deposit", "50", *terms)
    ident = opener.show(channel)["channel"]
    listed = json.loads(joiner.ok("list", "--json"))
    assert [entry["open_to_you"] for entry in listed if entry["channel"] == ident] == [True], listed
    joiner.ok("join", channel)
    return opener.show(channel)
