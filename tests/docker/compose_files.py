"""The compose files as data: services, their command lines, and the flags in those command lines."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCKER_DIR = REPO_ROOT / "docker"
SINGLE_NODE = "docker-compose.yaml"
PBFT = "docker-compose-pbft.yaml"
TESTS = "docker-compose.test.yaml"
COMPOSE_FILES = (SINGLE_NODE, PBFT, TESTS)
NETWORKS = (SINGLE_NODE, PBFT)


def services(file_name: str) -> dict[str, dict[str, Any]]:
    """The services of ``docker/<file_name>``, with YAML anchors and merge keys resolved as compose does."""
    document = yaml.safe_load((DOCKER_DIR / file_name).read_text(encoding="utf-8"))
    return document["services"]


def argv(service: dict[str, Any]) -> list[str]:
    """A service's command as the argument vector compose runs (a string command is split like a shell does)."""
    command = service["command"]
    return list(command) if isinstance(command, list) else shlex.split(command)


def flag_values(arguments: list[str], *flags: str) -> list[str]:
    """Every value given to any of ``flags`` (``-C URL`` or ``-C=URL`` forms)."""
    values = []
    for index, argument in enumerate(arguments):
        name, equals, value = argument.partition("=")
        if equals and name in flags:
            values.append(value)
        elif argument in flags and index + 1 < len(arguments):
            values.append(arguments[index + 1])
    return values


def program(service: dict[str, Any]) -> str:
    """The program a service runs: the validator for the wrapper script, else the command's first word."""
    arguments = argv(service)
    if "--" in arguments:
        return arguments[arguments.index("--") + 1]
    return arguments[0]


def connect_targets(service: dict[str, Any]) -> list[tuple[str, int]]:
    """The (host, port) pairs a service connects to with -C/--connect tcp://HOST:PORT."""
    targets = []
    for url in flag_values(argv(service), "-C", "--connect"):
        assert url.startswith("tcp://"), url
        host, _, port = url.removeprefix("tcp://").rpartition(":")
        targets.append((host, int(port)))
    return targets


def validator_binds(service: dict[str, Any]) -> dict[str, int]:
    """What a validator listens on: {"component": 4004, "network": 8800, ...} from its --bind flags."""
    binds = {}
    for bind in flag_values(argv(service), "--bind"):
        role, _, url = bind.partition(":")
        binds[role] = int(url.rpartition(":")[2])
    return binds


def validators(file_name: str) -> dict[str, dict[str, Any]]:
    return {name: service for name, service in services(file_name).items() if program(service) == "sawtooth-validator"}
