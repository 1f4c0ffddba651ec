"""docker/start-validator.sh, run with stand-ins for sawadm, sawset and the validator that record what they are asked.

The stand-ins behave like the real tools where the script depends on it: `sawadm keygen` writes the key
pair, `sawset ... -o FILE` writes a batch (here: its arguments, one per line), and `sawadm genesis`
writes $SAWTOOTH_HOME/data/genesis.batch and refuses to overwrite it.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docker.compose_files import DOCKER_DIR

SCRIPT = DOCKER_DIR / "start-validator.sh"
VALIDATOR = ["fake-validator", "-v", "--endpoint", "tcp://validator:8800"]
NODES = ["validator-0", "validator-1", "validator-2", "validator-3"]

SAWADM = """#!/bin/sh
echo "sawadm $*" >> "$FAKE_LOG"
case "$1" in
keygen)
    mkdir -p "$SAWTOOTH_HOME/keys"
    echo "private-$FAKE_PUBLIC_KEY" > "$SAWTOOTH_HOME/keys/validator.priv"
    echo "$FAKE_PUBLIC_KEY" > "$SAWTOOTH_HOME/keys/validator.pub" ;;
genesis)
    shift
    out="$SAWTOOTH_HOME/data/genesis.batch"
    [ -e "$out" ] && { echo "File already exists: $out" >&2; exit 1; }
    mkdir -p "$SAWTOOTH_HOME/data"
    cat "$@" > "$out" ;;
esac
"""
SAWSET = """#!/bin/sh
echo "sawset $*" >> "$FAKE_LOG"
out=""
previous=""
for argument in "$@"; do
    [ "$previous" = "-o" ] && out="$argument"
    previous="$argument"
done
printf '%s\\n' "$@" > "$out"
"""
FAKE_VALIDATOR = """#!/bin/sh
echo "validator $*" >> "$FAKE_LOG"
"""


@dataclass
class Node:
    """One validator container's file system: its SAWTOOTH_HOME, plus the volume PBFT nodes share."""

    home: Path
    shared_keys: Path
    bin_dir: Path
    public_key: str

    @property
    def log(self) -> list[str]:
        log = self.home / "calls.log"
        return log.read_text().splitlines() if log.exists() else []

    @property
    def genesis_batch(self) -> Path:
        return self.home / "data" / "genesis.batch"

    def environment(self, **extra: str) -> dict[str, str]:
        return {
            **os.environ,
            "PATH": f"{self.bin_dir}{os.pathsep}{os.environ['PATH']}",
            "SAWTOOTH_HOME": str(self.home),
            "XO_PBFT_KEYS_DIR": str(self.shared_keys),
            "FAKE_LOG": str(self.home / "calls.log"),
            "FAKE_PUBLIC_KEY": self.public_key,
            **extra,
        }

    def start(self, *arguments: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", str(SCRIPT), *arguments],
            capture_output=True,
            text=True,
            env=self.environment(**extra),
            timeout=60,
            check=False,
        )

    def commit_genesis(self) -> None:
        """What the validator does with a genesis batch: make the block, record the chain id, delete the batch."""
        self.genesis_batch.unlink()
        (self.home / "data" / "block-chain-id").write_text("genesis-block-id")


@pytest.fixture
def make_node(tmp_path: Path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("sawadm", SAWADM), ("sawset", SAWSET), ("fake-validator", FAKE_VALIDATOR)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)

    def make(name: str, public_key: str) -> Node:
        home = tmp_path / name
        home.mkdir()
        return Node(home, tmp_path / "pbft-keys", bin_dir, public_key)

    return make


def genesis_settings(node: Node) -> list[str]:
    return [line for line in node.genesis_batch.read_text().splitlines() if line.startswith("sawtooth.")]


def test_a_new_devmode_node_makes_its_keys_and_a_devmode_genesis_then_runs_the_validator(make_node) -> None:
    node = make_node("validator", "02aa")

    started = node.start("devmode", "--", *VALIDATOR)

    assert started.returncode == 0, started.stderr
    assert (node.home / "keys" / "validator.pub").read_text().strip() == "02aa"
    assert genesis_settings(node) == [
        "sawtooth.consensus.algorithm.name=Devmode",
        "sawtooth.consensus.algorithm.version=0.1",
    ]
    assert node.log[0] == "sawadm keygen"
    assert node.log[-1] == "validator " + " ".join(VALIDATOR[1:])


def test_a_restarted_node_keeps_its_keys_and_chain(make_node) -> None:
    node = make_node("validator", "02aa")
    assert node.start("devmode", "--", *VALIDATOR).returncode == 0
    node.commit_genesis()
    calls_before = len(node.log)

    restarted = node.start("devmode", "--", *VALIDATOR)

    assert restarted.returncode == 0, restarted.stderr
    assert node.log[calls_before:] == ["validator " + " ".join(VALIDATOR[1:])]
    assert "no genesis needed" in restarted.stdout


def test_a_genesis_batch_the_validator_has_not_used_yet_is_left_for_it(make_node) -> None:
    node = make_node("validator", "02aa")
    assert node.start("devmode", "--", *VALIDATOR).returncode == 0
    pending = node.genesis_batch.read_text()

    restarted = node.start("devmode", "--", *VALIDATOR)

    assert restarted.returncode == 0, restarted.stderr
    assert node.genesis_batch.read_text() == pending


def test_pbft_members_publish_their_keys_and_the_genesis_node_names_them_all(make_node) -> None:
    nodes = {name: make_node(name, f"03{index:02x}" * 4) for index, name in enumerate(NODES)}
    for name in NODES[1:]:
        member = nodes[name].start("pbft", name, "--", *VALIDATOR)
        assert member.returncode == 0, member.stderr
        assert not nodes[name].genesis_batch.exists()

    maker = nodes[NODES[0]].start("pbft", NODES[0], "--genesis", ",".join(NODES), "--", *VALIDATOR)

    assert maker.returncode == 0, maker.stderr
    settings = genesis_settings(nodes[NODES[0]])
    assert settings[:2] == ["sawtooth.consensus.algorithm.name=pbft", "sawtooth.consensus.algorithm.version=1.0"]
    members = settings[2].removeprefix("sawtooth.consensus.pbft.members=")
    assert json.loads(members) == [nodes[name].public_key for name in NODES]
    assert nodes[NODES[0]].log[-1] == "validator " + " ".join(VALIDATOR[1:])


def test_the_pbft_genesis_node_waits_for_members_that_start_later(make_node) -> None:
    nodes = {name: make_node(name, f"02{index:02x}" * 4) for index, name in enumerate(NODES)}
    maker = nodes[NODES[0]]
    waiting = subprocess.Popen(
        ["bash", str(SCRIPT), "pbft", NODES[0], "--genesis", ",".join(NODES), "--", *VALIDATOR],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=maker.environment(),
    )
    try:
        time.sleep(0.5)
        assert waiting.poll() is None, waiting.communicate()[0]
        for name in NODES[1:]:
            assert nodes[name].start("pbft", name, "--", *VALIDATOR).returncode == 0
        output, _ = waiting.communicate(timeout=30)
    finally:
        waiting.kill()
        waiting.wait()

    assert waiting.returncode == 0, output
    assert "waiting for the public keys of" in output
    assert maker.genesis_batch.exists()


def test_the_pbft_genesis_node_gives_up_on_members_that_never_come(make_node) -> None:
    maker = make_node(NODES[0], "02ff")

    started = maker.start(
        "pbft", NODES[0], "--genesis", ",".join(NODES), "--", *VALIDATOR, XO_PBFT_MEMBER_WAIT_SECONDS="1"
    )

    assert started.returncode == 1
    assert "validator-1 validator-2 validator-3" in started.stderr
    assert not maker.genesis_batch.exists()
    assert not any(call.startswith("validator") for call in maker.log)


@pytest.mark.parametrize(
    ("arguments", "status", "message"),
    [
        (["devmode", *VALIDATOR], 2, "usage"),
        (["poet", "--", *VALIDATOR], 2, "usage"),
        (["pbft", "--", *VALIDATOR], 2, "usage"),
        (["devmode", "--"], 2, "usage"),
        (["pbft", "validator-0", "--genesis", "validator-0,validator-1", "--", *VALIDATOR], 1, "at least 4"),
        (["pbft", "validator-9", "--genesis", ",".join(NODES), "--", *VALIDATOR], 1, "must be a member"),
        (["pbft", "../evil", "--", *VALIDATOR], 1, "bad node name"),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_done(make_node, arguments, status, message) -> None:
    node = make_node("validator", "02aa")

    started = node.start(*arguments)

    assert started.returncode == status
    assert message in started.stderr
    assert node.log == []
