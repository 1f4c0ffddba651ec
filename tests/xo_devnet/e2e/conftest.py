"""Running the real commands as separate processes: ``xo-devnet`` (with its ``xo-tp``) and ``xo``."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from xo_devnet.spawn import DevnetProcess


class Xo:
    """The ``xo`` command pointed at one devnet, with its keys."""

    def __init__(self, url: str, key_dir: Path) -> None:
        self.url = url
        self.key_dir = key_dir

    def __call__(self, *argv: str, username: str = "alice") -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "xo_cli.main", *argv, "--url", self.url, "--key-dir", str(self.key_dir)]
        if argv[0] in ("create", "take", "delete"):
            command += ["--username", username, "--wait", "60"]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    def games(self) -> list[dict[str, Any]]:
        listed = self("list", "--format", "json")
        assert listed.returncode == 0, listed.stderr
        return json.loads(listed.stdout)


def fetch(url: str, body: Any = None) -> Any:
    """GET (or POST ``body`` as JSON) and decode the JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


@pytest.fixture
def fetch_json():
    return fetch


@pytest.fixture
def start_devnet(tmp_path):
    """``start_devnet(*args, key_dir=None)`` starts an xo-devnet (logs in ``.log``); all are stopped at the end."""
    started: list[DevnetProcess] = []

    def start(*args: str, key_dir: Path | None = None) -> DevnetProcess:
        log_path = tmp_path / f"devnet-{len(started)}.log"
        devnet = DevnetProcess(args or ("--ephemeral",), key_dir=key_dir, log_path=log_path)
        started.append(devnet)
        return devnet.start()

    yield start
    for devnet in started:
        devnet.close()


@pytest.fixture
def xo_for():
    return Xo
