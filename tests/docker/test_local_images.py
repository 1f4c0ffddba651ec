"""docker-compose.local-images.yaml: the single node and its test file on images built on a machine with no registry
(scripts/compose-test, which CI runs). It swaps images and nothing else, but for what Sawtooth 1.0.5 does differently
from 1.2: no consensus engine container and no consensus endpoint. So the stack CI runs for real is the one a user
runs, down to every command line, health check, volume and dependency."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.docker.compose_files import (
    LOCAL_IMAGES,
    SINGLE_NODE,
    TEST_SERVICE,
    TESTS,
    argv,
    closure,
    flag_values,
    program,
    raw_document,
    services,
    validators,
)
from tests.docker.test_compose_schema import check_compose_spec

STACK = (SINGLE_NODE, TESTS, LOCAL_IMAGES)
LOCAL = {"XO_SAWTOOTH_IMAGE": "sawtooth:1.0.5-local", "XO_MOSQUITTO_IMAGE": "xo-mosquitto:bookworm"}
SAWTOOTH_PROGRAMS = {"sawtooth-validator", "devmode-engine-rust", "settings-tp", "sawtooth-rest-api", "block-info-tp"}
ENGINE = "devmode-engine"


def test_every_sawtooth_service_and_the_broker_run_the_images_the_variables_name() -> None:
    network = services(SINGLE_NODE)
    local = services(*STACK, environment=LOCAL)
    swapped = {name for name, service in network.items() if program(service) in SAWTOOTH_PROGRAMS}

    assert {name: local[name]["image"] for name in swapped} == dict.fromkeys(swapped, LOCAL["XO_SAWTOOTH_IMAGE"])
    assert local["mosquitto"]["image"] == LOCAL["XO_MOSQUITTO_IMAGE"]
    assert set(raw_document(LOCAL_IMAGES)["services"]) == swapped | {"mosquitto"}


def test_the_validator_runs_the_1_2_command_less_its_consensus_endpoint() -> None:
    """Sawtooth 1.0.5's validator runs Devmode itself and has no --bind consensus; everything else is the same."""
    (name,) = validators(SINGLE_NODE)
    chime = argv(services(SINGLE_NODE)[name])
    consensus = [bind for bind in flag_values(chime, "--bind") if bind.startswith("consensus:")]

    (bind,) = consensus
    at = chime.index(bind)
    assert argv(services(*STACK)[name]) == chime[: at - 1] + chime[at + 1 :]


def test_only_images_and_the_consensus_difference_change() -> None:
    """Beside images, the override changes the validator's command and how long it gets to stop, the engine's
    command and restart policy: nothing that compose merges entry by entry (ports, volumes), no environment,
    dependency or health check."""
    for name, service in raw_document(LOCAL_IMAGES)["services"].items():
        allowed = {"image"} | ({"command", "stop_grace_period"} if name in validators(SINGLE_NODE) else set())
        allowed |= {"command", "restart"} if name == ENGINE else set()
        assert set(service) <= allowed, name


def test_the_engine_stand_in_says_why_and_exits_so_what_depends_on_it_still_starts() -> None:
    engine = services(*STACK)[ENGINE]

    assert argv(engine)[0] == "echo" and "runs Devmode inside the validator" in argv(engine)[1]
    assert engine["restart"] == "no"
    assert ENGINE in closure(services(*STACK), TEST_SERVICE)


def test_the_stack_validates_against_the_compose_specification(tmp_path: Path) -> None:
    merged = tmp_path / "merged.yaml"
    merged.write_text(yaml.safe_dump(raw_document(*STACK)), encoding="utf-8")

    checked = check_compose_spec(merged)

    assert checked.returncode == 0, checked.stdout + checked.stderr
