"""Every service runs the image and command the README's services tables say, and publishes the ports they list.

The README is the single place a user reads what each network runs; these tests keep it and the compose
files from drifting apart.
"""

import pytest

from tests.docker.compose_files import COMPOSE_FILES, REPO_ROOT, argv, services
from tests.docker.readme_tables import services_table


@pytest.fixture(scope="module")
def readme() -> str:
    return (REPO_ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_the_readme_lists_exactly_the_services_of(compose_file: str, readme: str) -> None:
    documented = services_table(readme, f"docker/{compose_file}")

    assert sorted(documented) == sorted(services(compose_file))


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_each_service_runs_the_image_and_command_the_readme_gives(compose_file: str, readme: str) -> None:
    documented = services_table(readme, f"docker/{compose_file}")

    for name, service in services(compose_file).items():
        row = documented[name]
        assert service["image"] == row.image, name
        assert argv(service) == row.command, name
        assert service.get("ports", []) == row.ports, name
