"""The xo image's entry point and health check, run here with stand-ins for the commands they start."""

import os
import subprocess
from pathlib import Path, PurePosixPath

import pytest

from tests.docker.build_sources import dockerfile
from tests.docker.compose_files import DOCKER_DIR
from tests.docker.processors import image_processors, processor_command

ENTRYPOINT = DOCKER_DIR / "entrypoint.sh"
HEALTHCHECK = DOCKER_DIR / "healthcheck.sh"


def stand_in(bin_dir: Path, name: str) -> None:
    """A command that prints its name and arguments."""
    script = bin_dir / name
    script.write_text(f'#!/bin/sh\necho {name} "$@"\n')
    script.chmod(0o755)


def run_entrypoint(tmp_path: Path, *arguments: str) -> str:
    for name in ("xo-tp", "xo"):
        stand_in(tmp_path, name)
    environment = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["sh", str(ENTRYPOINT), *arguments], capture_output=True, text=True, env=environment, timeout=30, check=True
    )
    return done.stdout.strip()


def test_the_entrypoint_runs_the_command_it_is_given(tmp_path: Path) -> None:
    ran = run_entrypoint(tmp_path, "xo-tp", "-C", "tcp://validator:4004", "-vv")
    assert ran == "xo-tp -C tcp://validator:4004 -vv"

    ran = run_entrypoint(tmp_path, "xo", "list", "--url", "http://rest-api:8008")
    assert ran == "xo list --url http://rest-api:8008"


def test_the_entrypoint_passes_bare_flags_to_xo_tp(tmp_path: Path) -> None:
    assert run_entrypoint(tmp_path, "-C", "tcp://validator-1:4004", "-v") == "xo-tp -C tcp://validator-1:4004 -v"


def health(*arguments: str, ready_files: dict[str, Path] | None = None) -> subprocess.CompletedProcess[str]:
    """`tp-healthcheck ARGUMENTS...`, told where processors keep their ready files the way they are told: by the
    variables in ``ready_files`` ({variable: path}); no other *_READY_FILE variable is set."""
    environment = {name: value for name, value in os.environ.items() if not name.endswith("_READY_FILE")}
    environment.update({variable: str(path) for variable, path in (ready_files or {}).items()})
    return subprocess.run(
        ["sh", str(HEALTHCHECK), *arguments], capture_output=True, text=True, timeout=30, check=False, env=environment
    )


def image_ready_files(directory: Path) -> dict[str, Path]:
    """The image's ready file variables, each naming a file of the same name in ``directory`` instead of /tmp."""
    environment = dockerfile().stage("xo").environment()
    return {
        variable: directory / PurePosixPath(path).name
        for variable, path in environment.items()
        if variable.endswith("_READY_FILE")
    }


@pytest.mark.parametrize("name", image_processors())
def test_healthy_exactly_while_the_named_processor_keeps_its_ready_file(tmp_path: Path, name: str) -> None:
    """The check reads the variable the processor itself reads ($XO_TP_READY_FILE for xo-tp, and so on)."""
    ready = {processor_command(name).ready_file_env: tmp_path / f"{name}.ready"}
    unregistered = health(name, ready_files=ready)
    assert unregistered.returncode == 1
    assert f"{name} is not registered" in unregistered.stderr

    (tmp_path / f"{name}.ready").write_text("registered with tcp://validator:4004\n")
    assert health(name, ready_files=ready).returncode == 0

    (tmp_path / f"{name}.ready").unlink()
    assert health(name, ready_files=ready).returncode == 1


@pytest.mark.parametrize("name", image_processors())
def test_in_the_image_a_processor_is_healthy_by_its_own_ready_file_only(tmp_path: Path, name: str) -> None:
    """xo-tp and rps-tp containers run one image, which names every processor's file: each check reads its own."""
    ready_files = image_ready_files(tmp_path)
    (tmp_path / f"{name}.ready").write_text("registered with tcp://validator:4004\n")

    assert health(name, ready_files=ready_files).returncode == 0
    for other in image_processors():
        if other != name:
            assert health(other, ready_files=ready_files).returncode == 1, f"{name}'s file makes {other} healthy"


@pytest.mark.parametrize("name", image_processors())
def test_the_image_tells_each_processor_where_the_health_check_looks_by_default(name: str) -> None:
    """The image's ENV must use the variable the processor reads, and name the file the check reads without it."""
    variable = processor_command(name).ready_file_env
    environment = dockerfile().stage("xo").environment()
    assert variable in environment, f"the image never tells {name} to keep a ready file: {environment}"

    unset = health(name)

    assert unset.returncode == 1, "a ready file exists at the default path on this machine"
    assert f"({environment[variable]} is absent)" in unset.stderr


@pytest.mark.parametrize(
    "arguments", [[], ["xo"], ["tp"], ["-tp"], ["XO-TP"], ["xo--tp"], ["../xo-tp"], ["x;id-tp"], ["x y-tp"], ["a.b-tp"]]
)
def test_a_check_that_names_no_processor_is_unhealthy_and_says_why(tmp_path: Path, arguments: list[str]) -> None:
    """Status 1, not 2: Docker reserves 2. Nothing outside [a-z0-9-] ever reaches a variable name."""
    (tmp_path / "xo-tp.ready").write_text("registered with tcp://validator:4004\n")

    checked = health(*arguments, ready_files=image_ready_files(tmp_path))

    assert checked.returncode == 1
    assert checked.stderr.startswith("usage: tp-healthcheck PROCESSOR")
