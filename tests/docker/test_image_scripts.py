"""The xo image's entry point and health check, run here with stand-ins for the commands they start."""

import os
import subprocess
from pathlib import Path

from tests.docker.build_sources import dockerfile
from tests.docker.compose_files import DOCKER_DIR
from xo_tp.cli import READY_FILE_ENV

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


def health(ready_file: Path | None) -> subprocess.CompletedProcess[str]:
    """The health check, told where xo-tp keeps its ready file the way xo-tp is told ($XO_TP_READY_FILE), or not."""
    environment = {name: value for name, value in os.environ.items() if name != READY_FILE_ENV}
    if ready_file is not None:
        environment[READY_FILE_ENV] = str(ready_file)
    return subprocess.run(
        ["sh", str(HEALTHCHECK)], capture_output=True, text=True, timeout=30, check=False, env=environment
    )


def test_healthy_exactly_while_xo_tp_keeps_its_ready_file(tmp_path: Path) -> None:
    ready = tmp_path / "xo-tp.ready"
    unregistered = health(ready)
    assert unregistered.returncode == 1
    assert "not registered" in unregistered.stderr

    ready.write_text("registered with tcp://validator:4004\n")
    assert health(ready).returncode == 0

    ready.unlink()
    assert health(ready).returncode == 1


def test_the_image_tells_xo_tp_where_the_health_check_looks_by_default() -> None:
    """The image's ENV must use the variable xo-tp reads, and name the file the health check reads without it."""
    environment = dockerfile().stage("xo").environment()
    assert READY_FILE_ENV in environment, f"the image never tells xo-tp to keep a ready file: {environment}"

    unset = health(None)

    assert unset.returncode == 1, "a ready file exists at the default path on this machine"
    assert f"({environment[READY_FILE_ENV]} is absent)" in unset.stderr
