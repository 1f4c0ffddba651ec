"""The compose files as data: services, their command lines, and the flags in those command lines.

The files take variables (`${XO_REST_PORT:-8008}`), which compose fills in from the environment: ``document`` reads
them as compose does with the variables given (none by default: what a user who sets none runs), ``raw_document``
as written.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
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
# The single node on images built on a machine with no registry (scripts/compose-test): Sawtooth 1.0.5 for 1.2.
LOCAL_IMAGES = "docker-compose.local-images.yaml"
NETWORKS = (SINGLE_NODE, PBFT)
# Each network with the file that adds the integration suite to it: `docker compose -f NETWORK -f TESTS`.
TEST_OVERRIDES = {SINGLE_NODE: TESTS, PBFT: PBFT_TESTS}
TEST_SERVICE = "integration-tests"


# A published port as written: 127.0.0.1:${VARIABLE:-DEFAULT}:CONTAINER_PORT.
MOVABLE_PORT = re.compile(r"127\.0\.0\.1:\$\{(?P<variable>XO_\w+_PORT(?:_\d)?):-(?P<default>\d+)\}:(?P<port>\d+)")
# ${NAME}, ${NAME:-default} (default when NAME is unset or empty) and ${NAME-default} (when unset); $$ is a "$".
VARIABLE = re.compile(r"\$\$|\$\{(?P<name>\w+)(?:(?P<colon>:?)-(?P<default>[^}]*))?\}")


def interpolate(value: Any, environment: Mapping[str, str]) -> Any:
    """``value`` with every variable in its strings filled in as compose fills them from ``environment``; a variable
    with no default must be set, since compose would quietly make it empty."""

    def fill(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match["name"]
        if name in environment and (environment[name] or not match["colon"]):
            return environment[name]
        assert match["default"] is not None, f"${{{name}}} has no default: unset, compose makes it empty"
        return match["default"]

    if isinstance(value, str):
        return VARIABLE.sub(fill, value)
    if isinstance(value, dict):
        return {key: interpolate(item, environment) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, environment) for item in value]
    return value


def raw_document(*file_names: str) -> dict[str, Any]:
    """``docker/<file_name>`` as data, with YAML anchors and merge keys resolved and variables as written; several
    files merged as `docker compose -f A -f B` does: mappings key by key, any other value replaced by the later file's.

    Compose merges a few sequences (ports, volumes) entry by entry instead; that difference never shows as
    long as an override does not repeat a service's ports or volumes, which test_compose_networks checks.
    """
    merged: dict[str, Any] = {}
    for file_name in file_names:
        merged = _merge(merged, yaml.safe_load((DOCKER_DIR / file_name).read_text(encoding="utf-8")))
    return merged


def document(*file_names: str, environment: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The files merged as ``raw_document`` merges them, their variables filled in from ``environment`` (none set
    by default)."""
    return interpolate(raw_document(*file_names), environment or {})


def _merge(base: Any, override: Any) -> Any:
    if isinstance(base, dict) and isinstance(override, dict):
        return {**base, **{key: _merge(base.get(key), value) for key, value in override.items()}}
    return override


def services(*file_names: str, environment: Mapping[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """The services of the compose files, merged as compose merges them, with no variable set unless given."""
    return document(*file_names, environment=environment)["services"]


def closure(merged: dict[str, dict[str, Any]], name: str) -> set[str]:
    """Every service that `run NAME` starts besides NAME: its dependencies, theirs, and so on."""
    found: set[str] = set()
    pending = [name]
    while pending:
        for dependency in dependencies(merged[pending.pop()]):
            if dependency not in found:
                found.add(dependency)
                pending.append(dependency)
    return found


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


def validators(*file_names: str) -> dict[str, dict[str, Any]]:
    return {
        name: service for name, service in services(*file_names).items() if program(service) == "sawtooth-validator"
    }
