"""The compose files are valid Compose Specification documents (schema as vendored by check-jsonschema), alone
and as users run them: each network merged with its test override, as `docker compose -f A -f B` merges them."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.docker.compose_files import COMPOSE_FILES, DOCKER_DIR, NETWORKS, TEST_OVERRIDES, document, services


def check_compose_spec(*files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_every_compose_file_validates_against_the_compose_specification() -> None:
    checked = check_compose_spec(*(DOCKER_DIR / name for name in COMPOSE_FILES))

    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("network", NETWORKS)
def test_each_network_with_its_test_override_validates_against_the_compose_specification(
    network: str, tmp_path: Path
) -> None:
    pair = document(network, TEST_OVERRIDES[network])
    assert set(pair["services"]) == set(services(network)) | set(services(TEST_OVERRIDES[network]))
    merged = tmp_path / "merged.yaml"
    merged.write_text(yaml.safe_dump(pair), encoding="utf-8")

    checked = check_compose_spec(merged)

    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_schema_check_catches_a_misspelt_service_key(tmp_path: Path) -> None:
    original = (DOCKER_DIR / "docker-compose.yaml").read_text(encoding="utf-8")
    misspelt = tmp_path / "docker-compose.yaml"
    misspelt.write_text(original.replace("    depends_on: [validator]\n", "    depends_upon: [validator]\n", 1))
    assert misspelt.read_text() != original

    checked = check_compose_spec(misspelt)

    assert checked.returncode == 1
    assert "depends_upon" in checked.stdout
