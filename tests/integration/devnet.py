"""An `xo-devnet` of the suite's own, for when no network is named: started on free ports, always stopped."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from tests.integration.players import console_script

READY_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 15.0
# The key xo-devnet makes in its key directory and names in a new chain's chips.issuers (docs/chips-operators.md).
ISSUER_KEY_NAME = "chips-issuer"


@contextlib.contextmanager
def running_devnet(workdir: Path, environment: Mapping[str, str] | None = None) -> Iterator[str]:
    """Run `xo-devnet --ephemeral` on free ports while the block runs; yield its REST API URL.

    ``environment`` adds to this process's (a processor's ``XO_TP_METRICS``, say); the ready file is
    ``workdir/ready.json``."""
    ready_file = workdir / "ready.json"
    log_path = workdir / "xo-devnet.log"
    command = [
        console_script("xo-devnet"),
        "--ephemeral",
        "--rest-api",
        "127.0.0.1:0",
        "--component-endpoint",
        "tcp://127.0.0.1:0",
        "--broker",
        "127.0.0.1:0",
        "--key-dir",
        str(workdir / "devnet-keys"),
        "--ready-file",
        str(ready_file),
        "--min-challenge",  # the chips tests let a challenge of 1 s run out (chips.min_challenge_seconds)
        "1",
    ]
    with log_path.open("wb") as log:
        # A session of its own, so that whatever xo-devnet started can be stopped with it.
        env = {**os.environ, **(environment or {})}
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        try:
            yield _wait_until_ready(process, ready_file, log_path)
        finally:
            _stop(process)


def devnet_broker(workdir: Path) -> str | None:
    """The MQTT broker the devnet running in ``workdir`` embeds (from its ready file), or None without one."""
    broker = json.loads((workdir / "ready.json").read_text()).get("broker_url")
    return str(broker) if broker else None


def devnet_issuer_key(workdir: Path) -> Path:
    """The private key file of the chips issuer that the devnet running in ``workdir`` made."""
    return workdir / "devnet-keys" / f"{ISSUER_KEY_NAME}.priv"


def _wait_until_ready(process: subprocess.Popen[bytes], ready_file: Path, log_path: Path) -> str:
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if ready_file.exists():
            return str(json.loads(ready_file.read_text())["rest_url"]).rstrip("/")
        if process.poll() is not None:
            raise RuntimeError(f"xo-devnet exited with status {process.returncode}:\n{_tail(log_path)}")
        time.sleep(0.05)
    raise RuntimeError(f"xo-devnet was not ready within {READY_TIMEOUT_SECONDS:g} s:\n{_tail(log_path)}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (xo-devnet then stops its xo-tp), then SIGKILL for anything of its process group still there."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=STOP_TIMEOUT_SECONDS)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _tail(path: Path, lines: int = 40) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
