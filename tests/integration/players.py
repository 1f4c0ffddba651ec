"""The `xo` command as the integration tests drive it: a separate process per command, like a player's.

Only the command line contract is used (subcommands, flags, exit codes, JSON output), so these tests hold
for any REST API the suite is pointed at.
"""

from __future__ import annotations

import enum
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# How long a move may take to commit. Generous: a PBFT network under load commits in seconds, not ms.
WAIT_SECONDS = float(os.environ.get("XO_WAIT_SECONDS", "60"))
# How long to wait for a forced illegal move where the REST API may never report it (Rejections.PRIMARY_ONLY):
# the move then times out, so this is what each one costs. Long enough for a legal move to commit meanwhile.
UNREPORTED_WAIT_SECONDS = float(os.environ.get("XO_UNREPORTED_WAIT_SECONDS", "5"))
# Beyond --wait, the time a command may take to start, sign and talk to the REST API.
COMMAND_SLACK_SECONDS = 60.0

OK = 0
REJECTED = 1
TIMED_OUT = 4


class Rejections(enum.Enum):
    """Which REST APIs of the network report a batch the validator rejected (XO_REJECTIONS_REPORTED).

    A validator learns that a batch is INVALID, and why, only by executing it in a block it builds.
    ALWAYS: every REST API reports it (one validator builds every block: xo-devnet, Devmode).
    PRIMARY_ONLY: only the REST API of the node that built the block does. On PBFT that is the primary, which
    changes with every view change; through any other node's REST API the invalid batch stays PENDING.
    """

    ALWAYS = "always"
    PRIMARY_ONLY = "primary-only"

    @classmethod
    def from_environment(cls) -> Rejections:
        """XO_REJECTIONS_REPORTED, or ALWAYS when unset: the strict expectation unless the network says otherwise."""
        value = os.environ.get("XO_REJECTIONS_REPORTED", cls.ALWAYS.value)
        try:
            return cls(value)
        except ValueError:
            choices = ", ".join(repr(member.value) for member in cls)
            raise ValueError(f"XO_REJECTIONS_REPORTED is {value!r}; it must be one of {choices}") from None


# Settings a user may have in their environment that must not steer the tests' commands.
_CLIENT_ENVIRONMENT = ("XO_URL", "XO_AUTH_USER", "XO_AUTH_PASSWORD")


def console_script(name: str) -> str:
    """The path of one of the project's commands, from the environment that runs the tests."""
    beside_python = Path(sys.executable).with_name(name)
    if beside_python.exists():
        return str(beside_python)
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"the {name!r} command is not installed beside {sys.executable} nor on PATH")
    return found


@dataclass(frozen=True)
class Outcome:
    """What one `xo` process did: its exit code and what it printed."""

    command: tuple[str, ...]
    code: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"$ {' '.join(self.command)}\n[exit {self.code}]\n{self.stdout}{self.stderr}"

    def json(self) -> object:
        assert self.code == OK, f"expected success:\n{self}"
        return json.loads(self.stdout)


@dataclass(frozen=True)
class Xo:
    """Runs `xo` against one REST API, of a network that reports rejections as ``rejections`` says."""

    url: str
    rejections: Rejections

    def run(self, *args: str) -> Outcome:
        command = (console_script("xo"), *args, "--url", self.url)
        environment = {name: value for name, value in os.environ.items() if name not in _CLIENT_ENVIRONMENT}
        try:
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                env=environment,
                timeout=WAIT_SECONDS + COMMAND_SLACK_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired as error:
            raise AssertionError(f"`{' '.join(command)}` did not finish in {error.timeout:g} s") from None
        return Outcome(tuple(command[1:]), done.returncode, done.stdout, done.stderr)

    def show(self, game: str) -> dict[str, str]:
        """The game as `xo show NAME --format json` prints it."""
        shown = self.run("show", game, "--format", "json").json()
        assert isinstance(shown, dict), shown
        return shown

    def list_games(self) -> list[dict[str, str]]:
        """Every game on the network, as `xo list --format json` prints them."""
        listed = self.run("list", "--format", "json").json()
        assert isinstance(listed, list), listed
        return listed


@dataclass(frozen=True)
class Player:
    """Someone with their own key pair, making moves with `xo`."""

    name: str
    key_dir: Path
    public_key: str
    xo: Xo

    @classmethod
    def new(cls, name: str, key_dir: Path, xo: Xo) -> Player:
        """A player with a fresh key made by `xo keygen`."""
        made = subprocess.run(
            [console_script("xo"), "keygen", name, "--key-dir", str(key_dir)],
            capture_output=True,
            text=True,
            timeout=COMMAND_SLACK_SECONDS,
            check=False,
        )
        assert made.returncode == OK, f"xo keygen {name} failed: {made.stdout}{made.stderr}"
        return cls(name, key_dir, (key_dir / f"{name}.pub").read_text().strip(), xo)

    def move(self, *args: str) -> Outcome:
        """Run a move command (`create`, `take`, `delete`) signed with this player's key."""
        return self.xo.run(*args, "--username", self.name, "--key-dir", str(self.key_dir))

    def create(self, game: str) -> None:
        self.committed("create", game)

    def take(self, game: str, space: str | int) -> None:
        self.committed("take", game, str(space))

    def delete(self, game: str) -> None:
        self.committed("delete", game)

    def committed(self, *args: str) -> Outcome:
        """Make a move, wait for it, and insist that it committed."""
        outcome = self.move(*args, "--wait", f"{WAIT_SECONDS:g}")
        assert outcome.code == OK, f"expected the move to commit:\n{outcome}"
        return outcome

    def refused_by_client(self, *args: str) -> Outcome:
        """A move `xo` must refuse on its own: exit 1 without submitting anything.

        No --wait: a move that was submitted exits 0 at once, so exit 1 can only mean `xo` refused it.
        """
        outcome = self.move(*args)
        assert outcome.code == REJECTED, f"expected xo to refuse the move before submitting it:\n{outcome}"
        return outcome

    def rejected_by_validator(self, *args: str, reason: str) -> Outcome:
        """A move forced past xo's own checks (--no-validate) that the validator must reject for ``reason``.

        Where only the primary reports rejections, the REST API may instead keep the batch PENDING until the
        (short) wait runs out: that counts too, and the caller checks that the game did not change.
        """
        reported = self.xo.rejections is Rejections.ALWAYS
        wait = WAIT_SECONDS if reported else UNREPORTED_WAIT_SECONDS
        outcome = self.move(*args, "--no-validate", "--wait", f"{wait:g}")
        if not reported and outcome.code == TIMED_OUT:
            assert "is still PENDING" in outcome.stderr, f"expected the move to be rejected or pending:\n{outcome}"
            return outcome
        assert outcome.code == REJECTED, f"expected the validator to reject the move:\n{outcome}"
        assert reason in outcome.stderr, f"expected the validator's reason {reason!r}:\n{outcome}"
        return outcome
