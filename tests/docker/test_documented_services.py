"""Every service runs the image and command docs/docker.md's services tables say, and publishes the ports they list.

docs/docker.md is the single place an operator reads what each network runs; these tests keep it and the
compose files from drifting apart.
"""

from typing import Any

import pytest

from tests.docker.compose_files import COMPOSE_FILES, REPO_ROOT, argv, services
from tests.docker.documented_services import services_table


def run_by(compose_file: str) -> dict[str, dict[str, Any]]:
    """The services the file runs: those with an image. A test file also sets a variable of a network's validator,
    which that network's table lists."""
    return {name: service for name, service in services(compose_file).items() if "image" in service}


@pytest.fixture(scope="module")
def reference() -> str:
    return (REPO_ROOT / "docs" / "docker.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_the_reference_lists_exactly_the_services_of(compose_file: str, reference: str) -> None:
    documented = services_table(reference, f"docker/{compose_file}")

    assert sorted(documented) == sorted(run_by(compose_file))


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_each_service_runs_the_image_and_command_the_reference_gives(compose_file: str, reference: str) -> None:
    documented = services_table(reference, f"docker/{compose_file}")

    for name, service in run_by(compose_file).items():
        row = documented[name]
        assert service["image"] == row.image, name
        assert argv(service) == row.command, name
        assert service.get("ports", []) == row.ports, name
