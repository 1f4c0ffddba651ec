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
PBFT_TESTS = "docker-compose-pbft.test.yaml"
COMPOSE_FILES = (SINGLE_NODE, PBFT, TESTS, PBFT_TESTS)
NETWORKS = (SINGLE_NODE, PBFT)
# Each network with the file that adds the integration suite to it: `docker compose -f NETWORK -f TESTS`.
TEST_OVERRIDES = {SINGLE_NODE: TESTS, PBFT: PBFT_TESTS}
TEST_SERVICE = "integration-tests"


def document(*file_names: str) -> dict[str, Any]:
    """``docker/<file_name>`` as data, with YAML anchors and merge keys resolved; several files merged as
    `docker compose -f A -f B` does: mappings key by key, any other value replaced by the later file's.

    Compose merges a few sequences (ports, volumes) entry by entry instead; that difference never shows as
    long as an override only adds services, which test_compose_networks checks of every override.
    """
    merged: dict[str, Any] = {}
    for file_name in file_names:
        merged = _merge(merged, yaml.safe_load((DOCKER_DIR / file_name).read_text(encoding="utf-8")))
    return merged


def _merge(base: Any, override: Any) -> Any:
    if isinstance(base, dict) and isinstance(override, dict):
        return {**base, **{key: _merge(base.get(key), value) for key, value in override.items()}}
    return override


def services(*file_names: str) -> dict[str, dict[str, Any]]:
    """The services of the compose files, merged as compose merges them."""
    return document(*file_names)["services"]


def dependencies(service: dict[str, Any]) -> dict[str, str]:
    """A service's depends_on as {service: condition}, the short list form meaning "service_started"."""
    depends_on = service.get("depends_on", {})
    if isinstance(depends_on, list):
        return dict.fromkeys(depends_on, "service_started")
    return {name: options.get("condition", "service_started") for name, options in depends_on.items()}


def url_host(url: str) -> str:
    """The host of an http://HOST:PORT URL."""
    assert url.startswith("http://"), url
    return url.removeprefix("http://").partition("/")[0].rpartition(":")[0]


def argv(service: dict[str, Any]) -> list[str]:
    """A service's entrypoint and command as the argument vector compose runs (a string is split like a shell
    does). Every service names one or the other, so that the file alone says what it runs."""
    words: list[str] = []
    for key in ("entrypoint", "command"):
        value = service.get(key, [])
        words += list(value) if isinstance(value, list) else shlex.split(value)
    assert words, "a service that names neither its entrypoint nor its command"
    return words


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
