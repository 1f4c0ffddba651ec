"""The xo image's entry point and health check, run here with stand-ins for the commands they start."""

import os
import socket
import subprocess
from pathlib import Path

from tests.docker.compose_files import DOCKER_DIR

ENTRYPOINT = DOCKER_DIR / "entrypoint.sh"
HEALTHCHECK = DOCKER_DIR / "healthcheck.sh"
TABLE_HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
LISTENING = "   0: 0100007F:0FA4 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1\n"
ESTABLISHED = "   1: 0200A8C0:A1B2 0300A8C0:0FA4 01 00000000:00000000 00:00000000 00000000  1000        0 2 1\n"


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


def health(*tables: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", str(HEALTHCHECK), *map(str, tables)], capture_output=True, text=True, timeout=30, check=False
    )


def test_healthy_only_with_an_established_connection(tmp_path: Path) -> None:
    listening_only = tmp_path / "tcp"
    listening_only.write_text(TABLE_HEADER + LISTENING)
    connected = tmp_path / "tcp6"
    connected.write_text(TABLE_HEADER + LISTENING + ESTABLISHED)

    assert health(listening_only).returncode == 1
    assert "not connected" in health(listening_only).stderr
    assert health(listening_only, connected).returncode == 0
    assert health(tmp_path / "missing").returncode == 1


def test_healthy_while_this_machine_holds_a_live_connection() -> None:
    with (
        socket.create_server(("127.0.0.1", 0)) as server,
        socket.create_connection(server.getsockname()),
        server.accept()[0],
    ):
        assert health().returncode == 0
