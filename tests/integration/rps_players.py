"""The `rps` command as the integration tests drive it: a separate process per command, with a player's own key.

Only the command line contract is used (subcommands, flags, exit codes, JSON output), so the tests hold for any
REST API the suite is pointed at. A throw waits for the opponent's commitment, so the two players' throws run at
once, each in a process of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass

from tests.integration.players import COMMAND_SLACK_SECONDS, OK, WAIT_SECONDS, Outcome, Player, console_script

# A throw waits for its commit, the opponent's commitment, its reveal and the opponent's reveal: four commits.
ROUND_SECONDS = 4 * WAIT_SECONDS
_CLIENT_ENVIRONMENT = ("XO_URL", "XO_AUTH_USER", "XO_AUTH_PASSWORD", "XO_USERNAME", "XO_KEY_DIR")


@dataclass(frozen=True)
class RpsPlayer:
    """A player of the integration suite (their key made by `xo keygen`) running `rps` against ``url``."""

    player: Player
    url: str

    @property
    def public_key(self) -> str:
        return self.player.public_key

    def command(self, *args: str) -> list[str]:
        where = ["--url", self.url, "--username", self.player.name, "--key-dir", str(self.player.key_dir)]
        return [console_script("rps"), *args, *where]

    def start(self, *args: str) -> subprocess.Popen[str]:
        environment = {name: value for name, value in os.environ.items() if name not in _CLIENT_ENVIRONMENT}
        return subprocess.Popen(
            self.command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment
        )

    def run(self, *args: str, seconds: float = WAIT_SECONDS) -> Outcome:
        return finish(self.start(*args), seconds)

    def committed(self, *args: str) -> Outcome:
        """An op waited for until committed; it must commit."""
        outcome = self.run(*args, "--wait", f"{WAIT_SECONDS:g}")
        assert outcome.code == OK, f"expected the op to commit:\n{outcome}"
        return outcome

    def show(self, game: str) -> dict[str, object]:
        shown = self.run("show", game, "--json").json()
        assert isinstance(shown, dict), shown
        return shown


def finish(process: subprocess.Popen[str], seconds: float) -> Outcome:
    """Wait for ``process`` within ``seconds`` plus the slack any command gets."""
    try:
        out, err = process.communicate(timeout=seconds + COMMAND_SLACK_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"`{' '.join(process.args)}` did not finish in time:\n{out}{err}") from None
    return Outcome(tuple(process.args[1:]), process.returncode, out, err)


def play_round(first: RpsPlayer, first_throw: str, second: RpsPlayer, second_throw: str, game: str) -> dict:
    """Both players throw at once, each waiting for the other; the round's result as the first player's JSON."""
    limit = ["--wait", f"{ROUND_SECONDS:g}"]
    running = [
        first.start("throw", game, first_throw, "--json", *limit),
        second.start("throw", game, second_throw, *limit),
    ]
    outcomes = [finish(process, ROUND_SECONDS) for process in running]
    for outcome in outcomes:
        assert outcome.code == OK, f"expected the round to be played:\n{outcome}"
    result = json.loads(outcomes[0].stdout)
    assert isinstance(result, dict)
    return result
