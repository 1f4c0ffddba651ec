"""Debian's ``mosquitto`` for the tests: a real MQTT broker on a free loopback port, configured in a temp dir.

Without mosquitto the tests that need it skip, saying why; in CI (``CI=true``) they fail
instead: ``.ci/run`` installs it, so a missing broker there is a broken CI, not a reason to skip.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.ports import reserved_port

MOSQUITTO_ENV = "XO_MOSQUITTO"
TLS_DIR = Path(__file__).parent / "tls"
START_SECONDS = 10.0


@dataclass
class Mosquitto:
    """A running broker: its plain port, its TLS port (the suite's localhost certificate), its process and config."""

    port: int
    tls_port: int
    process: subprocess.Popen[bytes]
    config: Path

    def kill(self) -> None:
        """SIGKILL, as a crash: no clean goodbye to the clients, and (without persistence) every session is lost."""
        self.process.kill()
        self.process.wait(timeout=5)

    def restart(self) -> None:
        """Start the same broker again on the same ports, after :meth:`kill`; it knows nothing of the old sessions."""
        self.process = _spawn(self.config)
        if not _wait_listening(self.process, *(p for p in (self.port, self.tls_port) if p)):
            stop(self.process)
            pytest.fail(f"mosquitto did not start again: {(self.config.parent / 'mosquitto.log').read_text()}")


def unavailable(reason: str) -> None:
    """Skip with ``reason``, or fail in CI, where mosquitto must be there."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the broker tests must run in CI; .ci/run installs mosquitto)")
    pytest.skip(reason)


def mosquitto_executable() -> str:
    """``$XO_MOSQUITTO``, else ``mosquitto`` on the PATH, else Debian's /usr/sbin/mosquitto."""
    found = os.environ.get(MOSQUITTO_ENV) or shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(found).exists():
        unavailable(
            f"no mosquitto to run the broker tests: install Debian's mosquitto (apt-get install mosquitto) "
            f"or set {MOSQUITTO_ENV}"
        )
    return str(found)


@contextmanager
def running_mosquitto(
    directory: Path, users: dict[str, str] | None = None, acl: str | None = None, port: int | None = None
) -> Iterator[Mosquitto]:
    """Start mosquitto with its own config in ``directory``; with ``users``, only they may connect; with ``acl``
    (an acl_file's lines), each may read and write only the topics it allows; on ``port``, or a free one.

    mosquitto cannot listen on port 0 and tell which it got: the ports it is given are held (tests/ports.py) while
    it runs, so no other program is given them meanwhile, nor after a :meth:`Mosquitto.kill` before its restart.
    """
    wanted = port
    for _attempt in range(3):
        with contextlib.ExitStack() as held:
            port, tls_port = wanted or held.enter_context(reserved_port()), held.enter_context(reserved_port())
            lines = [
                "per_listener_settings false",
                "persistence false",
                "max_queued_messages 10000",
                "set_tcp_nodelay true",
                "log_type error",
                "log_type warning",
                f"listener {port} 127.0.0.1",
                f"listener {tls_port} 127.0.0.1",
                f"certfile {TLS_DIR / 'localhost-cert.pem'}",
                f"keyfile {TLS_DIR / 'localhost-key.pem'}",
            ]
            if users:
                passwords = directory / "passwords"
                passwords.write_text("")
                for user, password in users.items():
                    subprocess.run(["mosquitto_passwd", "-b", str(passwords), user, password], check=True, timeout=10)
                lines += ["allow_anonymous false", f"password_file {passwords}"]
            if acl is not None:
                (directory / "acl").write_text(acl)
                lines.append(f"acl_file {directory / 'acl'}")
            else:
                lines.append("allow_anonymous true")
            with _started(directory, "\n".join(lines) + "\n", port, tls_port) as running:
                if running is not None:
                    yield running
                    return
    pytest.fail("mosquitto did not start on a free port in 3 attempts")


@contextmanager
def running_config(directory: Path, config: str) -> Iterator[Mosquitto]:
    """Start mosquitto with ``config`` (a whole mosquitto.conf) moved onto a free loopback port.

    Its ``listener`` line is replaced by one on a free port; a ``persistence_location`` goes to ``directory``.
    """
    for _attempt in range(3):
        with reserved_port() as port:
            lines = []
            for line in config.splitlines():
                if line.startswith("listener "):
                    lines.append(f"listener {port} 127.0.0.1")
                elif line.startswith("persistence_location "):
                    lines.append(f"persistence_location {directory}/")
                else:
                    lines.append(line)
            with _started(directory, "\n".join(lines) + "\n", port) as running:
                if running is not None:
                    yield running
                    return
    pytest.fail("mosquitto did not start on a free port in 3 attempts")


@contextmanager
def _started(directory: Path, config: str, port: int, tls_port: int = 0) -> Iterator[Mosquitto | None]:
    """mosquitto running ``config``, or None when it did not get its port (taken meanwhile): try another."""
    executable = mosquitto_executable()
    path = directory / "mosquitto.conf"
    # as root it would drop to the user 'mosquitto', locked out of the 0700 temp dir
    path.write_text(f"user {pwd.getpwuid(os.getuid()).pw_name}\n{config}")
    process = _spawn(path, executable)
    if not _wait_listening(process, *(p for p in (port, tls_port) if p)):
        stop(process)
        failure = (directory / "mosquitto.log").read_text(errors="replace").strip()
        if "Address already in use" not in failure:
            pytest.fail(f"mosquitto did not start: {failure}")
        yield None
        return
    running = Mosquitto(port, tls_port, process, path)
    try:
        yield running
    finally:
        stop(running.process)


def _spawn(config: Path, executable: str | None = None) -> subprocess.Popen[bytes]:
    """mosquitto on ``config``, writing to mosquitto.log beside it."""
    with (config.parent / "mosquitto.log").open("ab") as output:  # a file: a pipe nobody reads stalls a broker
        return subprocess.Popen([executable or mosquitto_executable(), "-c", str(config)], stdout=output, stderr=output)


def _wait_listening(process: subprocess.Popen[bytes], *ports: int) -> bool:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            for port in ports:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            time.sleep(0.02)
            continue
        return True
    return False


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the broker, waiting a bounded time for it."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
