"""scripts/compose-test runs the stack a user runs: the single node, its test file and the local images' file, every
variable of theirs that names a local image or moves a published port set, so that the stack never meets an xo-devnet
on its ports however many ports the files publish. (CI runs the script itself: .ci/run's compose step.)"""

from __future__ import annotations

import re
import shlex

from tests.docker.compose_files import LOCAL_IMAGES, MOVABLE_PORT, REPO_ROOT, SINGLE_NODE, TESTS, raw_document

SCRIPT = REPO_ROOT / "scripts" / "compose-test"
STACK = (SINGLE_NODE, TESTS, LOCAL_IMAGES)


def exported() -> dict[str, str]:
    """The variables the script exports with a literal or $name value: {name: value as written}."""
    found = {}
    for line in SCRIPT.read_text(encoding="utf-8").splitlines():
        if line.startswith("export "):
            found.update(word.split("=", 1) for word in shlex.split(line)[1:] if "=" in word)
    return found


def variables_in(*file_names: str) -> set[str]:
    text = "".join((REPO_ROOT / "docker" / name).read_text(encoding="utf-8") for name in file_names)
    return set(re.findall(r"\$\{(\w+)", text))


def test_the_script_runs_the_three_files_in_order() -> None:
    text = SCRIPT.read_text(encoding="utf-8").replace("\\\n", " ")
    named = re.findall(r'-f "\$repo/docker/([\w.-]+)"', text)

    assert named == list(STACK)
    assert "run --rm -T" in text and "integration-tests" in text


def test_every_published_port_of_the_stack_is_left_to_docker() -> None:
    ports = {
        match["variable"]
        for service in raw_document(*STACK)["services"].values()
        for match in (MOVABLE_PORT.fullmatch(port) for port in service.get("ports", []))
        if match
    }

    assert ports
    assert {name: exported().get(name) for name in ports} == dict.fromkeys(ports, "0")


def test_every_image_variable_of_the_stack_names_an_image_the_script_builds() -> None:
    images = {name for name in variables_in(*STACK) if not name.endswith(("_PORT", "_SECONDS")) and "PORT_" not in name}

    assert images == {"XO_BASE_IMAGE", "XO_WHEELS", "XO_SAWTOOTH_IMAGE", "XO_MOSQUITTO_IMAGE"}
    assert images <= set(exported())
    assert exported()["XO_WHEELS"] == "context"
