"""Chips can be issued on both compose networks from their first block, as on xo-devnet.

The chips-issuer-key service makes the key `chips-issuer` in the players' keys volume, once, before the
validator that makes the genesis block starts; that validator reads its public key from the same volume
(XO_CHIPS_ISSUER_KEY_FILE, which docker/start-validator.sh puts in `chips.issuers`), and the shell, where
players run `chips issue ... --username chips-issuer`, keeps its keys there. The key's command is run here
too, in a directory standing for the volume. The integration suite's container reads the same key (XO_CHIPS_ISSUER)
to issue its players chips. The genesis block also sets the challenge floor: chips-tp's own default unless a variable
moves it, 1 s in the test files, whose chips test lets a challenge of 1 s run out.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest

from chips_cli.arguments import build_parser
from chips_tp.channel import DEFAULT_MIN_DURATION
from tests.docker.compose_files import (
    NETWORKS,
    REPO_ROOT,
    SINGLE_NODE,
    TEST_OVERRIDES,
    TEST_SERVICE,
    argv,
    dependencies,
    flag_values,
    services,
    validators,
)
from xo_devnet.genesis import ISSUER_KEY_NAME

KEY_SERVICE = "chips-issuer-key"


def mounts(service: dict) -> dict[str, tuple[str, str]]:
    """A service's volumes as {target: (source, options)}."""
    found = {}
    for volume in service.get("volumes", []):
        source, target, *options = volume.split(":")
        found[target] = (source, ",".join(options))
    return found


def genesis_maker(network: str) -> str:
    """The validator that makes the genesis block: the only one on a single node, the one given --genesis on PBFT."""
    nodes = validators(network)
    [maker] = [
        name
        for name, service in nodes.items()
        if argv(service)[2] == "devmode" or flag_values(argv(service), "--genesis")
    ]
    return maker


def shell_key_dir(network: str) -> tuple[str, str]:
    """(volume, path) of the shell's key directory."""
    [(path, (volume, _))] = [(t, m) for t, m in mounts(services(network)["shell"]).items() if t.endswith("/keys")]
    return volume, path


@pytest.mark.parametrize("network", NETWORKS)
def test_the_genesis_maker_reads_the_issuer_key_the_shell_holds(network: str) -> None:
    volume, shell_path = shell_key_dir(network)
    maker = services(network)[genesis_maker(network)]
    key_file = PurePosixPath(maker["environment"]["XO_CHIPS_ISSUER_KEY_FILE"])

    assert key_file.name == f"{ISSUER_KEY_NAME}.pub", "the name xo-devnet's issuer key has"
    assert mounts(maker)[str(key_file.parent)] == (volume, "ro"), "the players' keys volume, read only"
    assert dependencies(maker)[KEY_SERVICE] == "service_completed_successfully"
    key_service = services(network)[KEY_SERVICE]
    assert mounts(key_service)[shell_path][0] == volume
    assert key_service["healthcheck"] == {"disable": True} and key_service["restart"] == "no"


@pytest.mark.parametrize("network", NETWORKS)
def test_the_suite_issues_chips_with_the_genesis_issuer_s_private_key(network: str) -> None:
    """Without it every chips test of the suite skips: it has no key that may issue its players' chips."""
    merged = services(network, TEST_OVERRIDES[network])
    public = PurePosixPath(merged[genesis_maker(network)]["environment"]["XO_CHIPS_ISSUER_KEY_FILE"])
    suite = merged[TEST_SERVICE]
    private = PurePosixPath(suite["environment"]["XO_CHIPS_ISSUER"])

    assert private.name == f"{ISSUER_KEY_NAME}.priv"
    assert mounts(suite)[str(private.parent)] == mounts(merged[genesis_maker(network)])[str(public.parent)]
    assert mounts(suite)[str(private.parent)][1] == "ro"


@pytest.mark.parametrize("network", NETWORKS)
def test_the_genesis_challenge_floor_is_chips_tp_s_default_unless_moved(network: str) -> None:
    maker = genesis_maker(network)
    floor = {"XO_CHIPS_MIN_CHALLENGE_SECONDS": "900"}

    assert services(network)[maker]["environment"]["XO_CHIPS_MIN_CHALLENGE_SECONDS"] == str(DEFAULT_MIN_DURATION)
    assert services(network, environment=floor)[maker]["environment"]["XO_CHIPS_MIN_CHALLENGE_SECONDS"] == "900"
    tested = services(network, TEST_OVERRIDES[network], environment=floor)[maker]["environment"]
    assert tested["XO_CHIPS_MIN_CHALLENGE_SECONDS"] == "1", "the test stack's floor is the suite's, whatever is set"


@pytest.mark.parametrize("network", NETWORKS)
def test_no_other_validator_names_an_issuer(network: str) -> None:
    maker = genesis_maker(network)
    for name, service in validators(network).items():
        if name != maker:
            genesis_only = {"XO_CHIPS_ISSUER_KEY_FILE", "XO_CHIPS_MIN_CHALLENGE_SECONDS"}
            assert not set(service.get("environment", {})) & genesis_only, name
            assert KEY_SERVICE not in dependencies(service), name


def run_shell(script: str, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = ["sh", "-c", script]
    return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("network", NETWORKS)
def test_the_key_service_makes_the_key_once_and_keeps_it(network: str, tmp_path: Path) -> None:
    """Its command, run as the image runs it (its `chips`, its HOME), with tmp_path/home standing for /home/xo."""
    _, shell_path = shell_key_dir(network)
    command = argv(services(network)[KEY_SERVICE])
    assert command[:2] == ["sh", "-c"]
    home = tmp_path / "home"
    script = command[2].replace("/home/xo", str(home))
    assert str(home / PurePosixPath(shell_path).relative_to("/home/xo") / f"{ISSUER_KEY_NAME}.pub") in script
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith("XO_")},
        "HOME": str(home),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }

    first = run_shell(script, environment)
    key_dir = home / ".sawtooth" / "keys"
    assert first.returncode == 0, first.stderr
    public_key = (key_dir / f"{ISSUER_KEY_NAME}.pub").read_text().strip()
    assert len(public_key) == 66 and (key_dir / f"{ISSUER_KEY_NAME}.priv").stat().st_mode & 0o077 == 0

    again = run_shell(script, environment)
    assert again.returncode == 0, again.stderr
    assert (key_dir / f"{ISSUER_KEY_NAME}.pub").read_text().strip() == public_key, "a restart keeps the key"


def documented_lines(prefix: str) -> list[list[str]]:
    """docs/docker.md's command lines that start with ``prefix``, split as a shell splits them."""
    text = (REPO_ROOT / "docs" / "docker.md").read_text(encoding="utf-8").replace("\\\n", " ")
    return [shlex.split(line) for line in text.splitlines() if line.startswith(prefix)]


def test_the_documented_chips_commands_in_the_shell_are_chips_command_lines() -> None:
    prefix = "docker compose -p xo-devmode -f docker/docker-compose.yaml exec shell chips "
    lines = documented_lines(prefix)
    issued = [line for line in lines if line[9] == "issue"]

    assert issued and len(lines) > len(issued)
    for line in lines:
        build_parser().parse_args(line[9:])  # a bad flag or argument exits 2, failing the test
    for line in issued:
        assert line[line.index("--username") + 1] == ISSUER_KEY_NAME


def test_the_documented_sawset_proposes_the_shells_issuer_key() -> None:
    [read_key] = documented_lines("key=$(docker compose")
    [propose] = documented_lines("docker compose -p xo-devmode -f docker/docker-compose.yaml exec validator sawset")
    _, shell_path = shell_key_dir(SINGLE_NODE)

    assert read_key[-1] == f"{PurePosixPath(shell_path).relative_to('/home/xo')}/{ISSUER_KEY_NAME}.pub)"
    assert read_key[6:9] == ["exec", "-T", "shell"], "no terminal: the key is read without a carriage return"
    assert propose[-1] == "chips.issuers=$key"
    assert propose[propose.index("--key") + 1] == "/etc/sawtooth/keys/validator.priv"
