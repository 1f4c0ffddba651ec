"""docker/start-validator.sh, run with stand-ins for sawadm, sawset and the validator that record what they are asked.

The stand-ins take only the command lines the real Sawtooth 1.2 tools take for what the script asks of them,
and fail as the real tools do: `sawadm keygen [--force]` needs an existing key directory and will not
overwrite a key without --force; `sawset genesis -k KEY -o FILE` and `sawset proposal create -k KEY -o FILE
KEY=VALUE...` need a readable key and write a batch (here: the settings it proposes, one per line);
`sawadm genesis FILE...` needs an existing data directory and the consensus settings, and writes
$SAWTOOTH_HOME/data/genesis.batch. They work under $SAWTOOTH_HOME only, so that the tests never touch the
machine's /etc or /var/lib; the script's own default paths are checked against the compose files instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pytest

from chips_tp.channel import MAX_DURATION
from tests.docker.compose_files import DOCKER_DIR, NETWORKS, argv, document, validators

SCRIPT = DOCKER_DIR / "start-validator.sh"
VALIDATOR = ["fake-validator", "-v", "--endpoint", "tcp://validator:8800"]
NODES = ["validator-0", "validator-1", "validator-2", "validator-3"]

# Shared by the stand-ins: record the call, then parse it as strictly as the real tool's argparse would.
STAND_IN_PRELUDE = f"""#!{sys.executable}
import argparse, os, sys
from pathlib import Path

with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(" ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) + "\\n")
HOME = Path(os.environ["SAWTOOTH_HOME"])


def public_key_of(private_key_file):
    text = Path(private_key_file).read_text().strip()
    if not text.startswith("private-"):
        sys.exit(f"Unable to read key from {{private_key_file}}")
    return text.removeprefix("private-")
"""
SAWADM = (
    STAND_IN_PRELUDE
    + """
parser = argparse.ArgumentParser(prog="sawadm")
commands = parser.add_subparsers(dest="command", required=True)
commands.add_parser("keygen").add_argument("--force", action="store_true")
commands.add_parser("genesis").add_argument("input_file", nargs="+")
args = parser.parse_args()
if args.command == "keygen":
    keys = HOME / "keys"
    if not keys.is_dir():
        sys.exit(f"Key directory does not exist: {keys}")
    if not args.force and any((keys / name).exists() for name in ("validator.priv", "validator.pub")):
        sys.exit("files exist, rerun with --force to overwrite existing files")
    (keys / "validator.priv").write_text(f"private-{os.environ['FAKE_PUBLIC_KEY']}\\n")
    (keys / "validator.pub").write_text(f"{os.environ['FAKE_PUBLIC_KEY']}\\n")
else:
    data = HOME / "data"
    if not data.is_dir():
        sys.exit(f"Data directory does not exist: {data}")
    settings = [line for name in args.input_file for line in Path(name).read_text().splitlines()]
    names = {setting.partition("=")[0] for setting in settings}
    if not {"sawtooth.consensus.algorithm.name", "sawtooth.consensus.algorithm.version"} <= names:
        sys.exit("The following setting(s) are required at genesis, but were not included")
    (data / "genesis.batch").write_text("".join(f"{setting}\\n" for setting in settings))
"""
)
SAWSET = (
    STAND_IN_PRELUDE
    + """
def setting(text):
    if "=" not in text or text.startswith("="):
        raise argparse.ArgumentTypeError(f"not a key=value setting: {text!r}")
    return text


parser = argparse.ArgumentParser(prog="sawset")
commands = parser.add_subparsers(dest="command", required=True)
genesis = commands.add_parser("genesis")
proposal = commands.add_parser("proposal").add_subparsers(dest="proposal_command", required=True)
create = proposal.add_parser("create")
for command in (genesis, create):
    command.add_argument("-k", "--key", required=True)
    command.add_argument("-o", "--output", required=True)
create.add_argument("setting", nargs="+", type=setting)
args = parser.parse_args()
public_key = public_key_of(args.key)
if args.command == "genesis":
    settings = [f"sawtooth.settings.vote.authorized_keys={public_key}"]
else:
    settings = args.setting
Path(args.output).write_text("".join(f"{line}\\n" for line in settings))
"""
)
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


def genesis_settings(node: Node) -> dict[str, str]:
    """The settings the node's genesis batch proposes."""
    return dict(line.split("=", 1) for line in node.genesis_batch.read_text().splitlines())


def run_validator() -> str:
    return "validator " + " ".join(VALIDATOR[1:])


# What every genesis block turns on: the validator injects a block_info transaction at the start of each block
# it publishes, and accepts a block only if it starts with exactly one, signed by the block's signer.
BLOCK_INFO_SETTINGS = {
    "sawtooth.validator.batch_injectors": "block_info",
    "sawtooth.validator.block_validation_rules": "NofX:1,block_info;XatY:block_info,0;local:0",
}
# The batch injectors a Sawtooth 1.2 validator knows; it refuses to publish with any other name.
SAWTOOTH_BATCH_INJECTORS = {"block_info"}


def block_validation_rules(text: str) -> set[tuple[str | int, ...]]:
    """sawtooth.validator.block_validation_rules as a Sawtooth 1.2 validator reads it, each rule as a tuple
    (NofX: limit, family; XatY: family, position; local: position, one tuple per position).

    Rules are `name:argument,...` joined by `;`, and whitespace does not count. The validator skips, with no
    more than a warning in its log, a rule it cannot read: here that fails, since a skipped rule enforces nothing.
    """
    rules: set[tuple[str | int, ...]] = set()
    for rule in text.split(";"):
        parts = rule.split(":")
        assert len(parts) == 2, f"the validator would skip {rule!r}: not name:arguments"
        name, arguments = parts[0].strip(), [argument.strip() for argument in parts[1].split(",")]
        if name == "NofX":
            assert len(arguments) == 2 and arguments[0].isdigit(), f"the validator would skip {rule!r}"
            rules.add((name, int(arguments[0]), arguments[1]))
        elif name == "XatY":
            assert len(arguments) == 2 and arguments[1].lstrip("-").isdigit(), f"the validator would skip {rule!r}"
            rules.add((name, arguments[0], int(arguments[1])))
        elif name == "local":
            assert all(argument.lstrip("-").isdigit() for argument in arguments), f"the validator would skip {rule!r}"
            rules.update((name, int(argument)) for argument in arguments)
        else:
            raise AssertionError(f"the validator knows no rule {name!r}")
    return rules


def test_the_block_info_rules_allow_exactly_one_block_info_transaction_first_in_a_block_signed_by_its_signer() -> None:
    assert block_validation_rules(BLOCK_INFO_SETTINGS["sawtooth.validator.block_validation_rules"]) == {
        ("NofX", 1, "block_info"),
        ("XatY", "block_info", 0),
        ("local", 0),
    }
    assert set(BLOCK_INFO_SETTINGS["sawtooth.validator.batch_injectors"].split(",")) <= SAWTOOTH_BATCH_INJECTORS


@pytest.mark.parametrize(
    "rules",
    ["NofX:1,block_info;XatY:0,block_info", "NofX:block_info,1", "XatY=block_info,0", "local:zero", "NofY:1,x"],
)
def test_rules_the_validator_would_skip_are_caught(rules: str) -> None:
    with pytest.raises(AssertionError):
        block_validation_rules(rules)


def test_a_new_devmode_node_makes_its_keys_and_a_devmode_genesis_then_runs_the_validator(make_node) -> None:
    node = make_node("validator", "02aa")

    started = node.start("devmode", "--", *VALIDATOR)

    assert started.returncode == 0, started.stderr
    assert (node.home / "keys" / "validator.pub").read_text().strip() == "02aa"
    assert genesis_settings(node) == {
        "sawtooth.settings.vote.authorized_keys": "02aa",
        "sawtooth.consensus.algorithm.name": "Devmode",
        "sawtooth.consensus.algorithm.version": "0.1",
        **BLOCK_INFO_SETTINGS,
    }
    assert node.log[0] == "sawadm keygen"
    assert node.log[-1] == run_validator()


CHIPS_ISSUER = "02" + "c1" * 32


def test_a_genesis_names_the_chips_issuer_whose_public_key_file_it_is_given(make_node, tmp_path) -> None:
    node = make_node("validator", "02aa")
    key_file = tmp_path / "chips-issuer.pub"
    key_file.write_text(CHIPS_ISSUER + "\n")

    started = node.start("devmode", "--", *VALIDATOR, XO_CHIPS_ISSUER_KEY_FILE=str(key_file))

    assert started.returncode == 0, started.stderr
    assert genesis_settings(node)["chips.issuers"] == CHIPS_ISSUER
    assert f"chips.issuers: {CHIPS_ISSUER}" in started.stdout
    assert node.log[-1] == run_validator()


def test_a_genesis_sets_the_chips_challenge_floor_it_is_given_with_the_issuer(make_node, tmp_path) -> None:
    node = make_node("validator", "02aa")
    key_file = tmp_path / "chips-issuer.pub"
    key_file.write_text(CHIPS_ISSUER + "\n")

    started = node.start(
        "devmode", "--", *VALIDATOR, XO_CHIPS_ISSUER_KEY_FILE=str(key_file), XO_CHIPS_MIN_CHALLENGE_SECONDS="1"
    )

    assert started.returncode == 0, started.stderr
    settings = genesis_settings(node)
    assert (settings["chips.issuers"], settings["chips.min_challenge_seconds"]) == (CHIPS_ISSUER, "1")
    assert "chips.min_challenge_seconds: 1" in started.stdout
    chips_proposals = [call for call in node.log if call.startswith("sawset proposal create") and "chips." in call]
    assert len(chips_proposals) == 1, "one batch: the floor commits with the issuers"


def test_without_a_floor_the_genesis_leaves_chips_tp_s_default(make_node) -> None:
    node = make_node("validator", "02aa")

    started = node.start("devmode", "--", *VALIDATOR, XO_CHIPS_MIN_CHALLENGE_SECONDS="")

    assert started.returncode == 0, started.stderr
    assert not {name for name in genesis_settings(node) if name.startswith("chips.")}


@pytest.mark.parametrize("floor", ["0", "-1", "1.5", "10s", " 5", "٣", str(MAX_DURATION + 1), "99999999999"])
def test_a_challenge_floor_chips_tp_would_not_read_is_refused_before_any_genesis(make_node, floor: str) -> None:
    node = make_node("validator", "02aa")

    started = node.start("devmode", "--", *VALIDATOR, XO_CHIPS_MIN_CHALLENGE_SECONDS=floor)

    assert started.returncode == 1
    assert "XO_CHIPS_MIN_CHALLENGE_SECONDS must be whole seconds" in started.stderr
    assert not node.genesis_batch.exists()
    assert run_validator() not in node.log


def test_the_largest_floor_chips_tp_reads_is_taken(make_node) -> None:
    node = make_node("validator", "02aa")

    started = node.start("devmode", "--", *VALIDATOR, XO_CHIPS_MIN_CHALLENGE_SECONDS=str(MAX_DURATION))

    assert started.returncode == 0, started.stderr
    assert genesis_settings(node)["chips.min_challenge_seconds"] == str(MAX_DURATION)


def test_the_pbft_genesis_maker_names_the_chips_issuer_too(make_node, tmp_path) -> None:
    nodes = {name: make_node(name, f"03{index:02x}" * 4) for index, name in enumerate(NODES)}
    for name in NODES[1:]:
        assert nodes[name].start("pbft", name, "--", *VALIDATOR).returncode == 0
    key_file = tmp_path / "chips-issuer.pub"
    key_file.write_text(CHIPS_ISSUER + "\n")

    maker = nodes[NODES[0]].start(
        "pbft", NODES[0], "--genesis", ",".join(NODES), "--", *VALIDATOR, XO_CHIPS_ISSUER_KEY_FILE=str(key_file)
    )

    assert maker.returncode == 0, maker.stderr
    assert genesis_settings(nodes[NODES[0]])["chips.issuers"] == CHIPS_ISSUER


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no chips issuer key"), ("", "no chips issuer key"), ("not-a-key\n", "holds no public key")],
    ids=["missing", "empty", "not-a-key"],
)
def test_a_chips_issuer_key_file_without_a_key_is_refused_before_any_genesis(
    make_node, tmp_path, content: str | None, message: str
) -> None:
    node = make_node("validator", "02aa")
    key_file = tmp_path / "chips-issuer.pub"
    if content is not None:
        key_file.write_text(content)

    started = node.start("devmode", "--", *VALIDATOR, XO_CHIPS_ISSUER_KEY_FILE=str(key_file))

    assert started.returncode == 1
    assert message in started.stderr and str(key_file) in started.stderr
    assert not node.genesis_batch.exists()
    assert run_validator() not in node.log


def test_a_restarted_node_keeps_its_keys_and_chain(make_node) -> None:
    node = make_node("validator", "02aa")
    assert node.start("devmode", "--", *VALIDATOR).returncode == 0
    node.commit_genesis()
    calls_before = len(node.log)

    restarted = node.start("devmode", "--", *VALIDATOR)

    assert restarted.returncode == 0, restarted.stderr
    assert node.log[calls_before:] == [run_validator()]
    assert "no genesis needed" in restarted.stdout


def test_a_genesis_batch_the_validator_has_not_used_yet_is_left_for_it(make_node) -> None:
    node = make_node("validator", "02aa")
    assert node.start("devmode", "--", *VALIDATOR).returncode == 0
    calls_before = len(node.log)

    restarted = node.start("devmode", "--", *VALIDATOR)

    assert restarted.returncode == 0, restarted.stderr
    assert node.log[calls_before:] == [run_validator()], "sawadm genesis would overwrite the pending batch"


def test_pbft_members_publish_their_keys_and_the_genesis_node_names_them_all(make_node) -> None:
    nodes = {name: make_node(name, f"03{index:02x}" * 4) for index, name in enumerate(NODES)}
    for name in NODES[1:]:
        member = nodes[name].start("pbft", name, "--", *VALIDATOR)
        assert member.returncode == 0, member.stderr
        assert not nodes[name].genesis_batch.exists()

    maker = nodes[NODES[0]].start("pbft", NODES[0], "--genesis", ",".join(NODES), "--", *VALIDATOR)

    assert maker.returncode == 0, maker.stderr
    settings = genesis_settings(nodes[NODES[0]])
    assert settings["sawtooth.settings.vote.authorized_keys"] == nodes[NODES[0]].public_key
    assert settings["sawtooth.consensus.algorithm.name"] == "pbft"
    assert settings["sawtooth.consensus.algorithm.version"] == "1.0"
    assert json.loads(settings["sawtooth.consensus.pbft.members"]) == [nodes[name].public_key for name in NODES]
    assert {name: settings.get(name) for name in BLOCK_INFO_SETTINGS} == BLOCK_INFO_SETTINGS
    assert len(settings) == 4 + len(BLOCK_INFO_SETTINGS), settings
    assert nodes[NODES[0]].log[-1] == run_validator()


def test_a_restarted_pbft_member_keeps_its_published_key(make_node) -> None:
    node = make_node(NODES[1], "02bb")
    assert node.start("pbft", NODES[1], "--", *VALIDATOR).returncode == 0

    restarted = node.start("pbft", NODES[1], "--", *VALIDATOR)

    assert restarted.returncode == 0, restarted.stderr
    assert (node.shared_keys / f"{NODES[1]}.pub").read_text().strip() == "02bb"
    assert node.log.count("sawadm keygen") == 1
    assert node.log[-1] == run_validator()


@pytest.mark.parametrize("genesis", [[], ["--genesis", ",".join(NODES)]], ids=["member", "genesis-maker"])
def test_a_member_whose_published_key_is_not_its_own_refuses_to_start(make_node, genesis: list[str]) -> None:
    """Its keys were remade while the shared volume kept the old key, which a genesis block may name."""
    name = NODES[0] if genesis else NODES[1]
    node = make_node(name, "02aa")
    node.shared_keys.mkdir()
    for member in NODES:
        (node.shared_keys / f"{member}.pub").write_text(f"02{member[-1]}old\n")

    started = node.start("pbft", name, *genesis, "--", *VALIDATOR)

    assert started.returncode == 1
    assert f"{name}.pub is not this node's public key" in started.stderr
    assert "down -v" in started.stderr
    assert (node.shared_keys / f"{name}.pub").read_text() == f"02{name[-1]}old\n"
    assert not node.genesis_batch.exists()
    assert run_validator() not in node.log


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


@pytest.mark.parametrize(
    "command",
    [
        ["sawadm", "keygen", "--forse"],
        ["sawadm", "keygen", "validator", "extra"],
        ["sawadm", "genesis"],
        ["sawset", "genesis", "-k", "{key}"],
        ["sawset", "genesis", "--key-file", "{key}", "-o", "{out}"],
        ["sawset", "proposal", "create", "-k", "{key}", "-o", "{out}"],
        ["sawset", "proposal", "create", "-k", "{key}", "-o", "{out}", "sawtooth.consensus.algorithm.name"],
        ["sawset", "proposal", "-k", "{key}", "-o", "{out}", "a=b"],
    ],
    ids=" ".join,
)
def test_the_stand_ins_refuse_command_lines_the_real_tools_refuse(make_node, command: list[str]) -> None:
    """Else a script that called the tools wrongly would pass here and fail in the container."""
    node = make_node("validator", "02aa")
    (node.home / "keys").mkdir()
    (node.home / "keys" / "validator.priv").write_text("private-02aa\n")
    paths = {"key": str(node.home / "keys" / "validator.priv"), "out": str(node.home / "out.batch")}

    called = subprocess.run(
        [str(node.bin_dir / command[0]), *(word.format(**paths) for word in command[1:])],
        capture_output=True,
        text=True,
        env=node.environment(),
        timeout=30,
        check=False,
    )

    assert called.returncode != 0, called.stdout
    assert not (node.home / "out.batch").exists()


def script_defaults() -> dict[str, str]:
    """The paths the script uses when nothing overrides them, as bash computes them (the script, sourced)."""
    environment = {
        name: value for name, value in os.environ.items() if name not in ("SAWTOOTH_HOME", "XO_PBFT_KEYS_DIR")
    }
    printed = subprocess.run(
        ["bash", "-c", 'source "$1" && printf "%s\\n" "$KEY_DIR" "$DATA_DIR" "$PBFT_KEYS_DIR"', "bash", str(SCRIPT)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=30,
        check=True,
    )
    return dict(zip(("KEY_DIR", "DATA_DIR", "PBFT_KEYS_DIR"), printed.stdout.splitlines(), strict=True))


@pytest.mark.parametrize("network", NETWORKS)
def test_the_default_paths_are_where_compose_mounts_the_node_volumes(network: str) -> None:
    """In the containers nothing sets SAWTOOTH_HOME: the script must find each node's keys and chain on its volumes."""
    defaults = script_defaults()
    declared_volumes = set(document(network)["volumes"])
    mounts = {  # node -> {target: source}
        name: {target: source for source, target, *_ in (volume.split(":") for volume in service["volumes"])}
        for name, service in validators(network).items()
    }
    for name, service in validators(network).items():
        script = argv(service)[1]
        on_volumes = {defaults["KEY_DIR"], defaults["DATA_DIR"]}
        on_volumes |= {defaults["PBFT_KEYS_DIR"]} if argv(service)[2] == "pbft" else set()
        issuer_key_file = service.get("environment", {}).get("XO_CHIPS_ISSUER_KEY_FILE")
        issuer_keys = {str(PurePosixPath(issuer_key_file).parent)} if issuer_key_file else set()

        assert set(mounts[name]) == {script, *on_volumes, *issuer_keys}, name
        assert mounts[name][script] == f"./{SCRIPT.name}", f"{name} runs a script it does not mount"
        assert {mounts[name][target] for target in on_volumes} <= declared_volumes, name

    own = [mounts[name][defaults[path]] for name in mounts for path in ("KEY_DIR", "DATA_DIR")]
    assert len(own) == len(set(own)), f"nodes share keys or chain volumes: {own}"
    assert len({node_mounts.get(defaults["PBFT_KEYS_DIR"]) for node_mounts in mounts.values()}) == 1
