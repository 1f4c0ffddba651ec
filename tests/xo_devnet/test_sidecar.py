"""The processor sidecar: restarted with back-off when it dies, stopped (or killed) on request."""

import asyncio
import os
import subprocess
import sys
import time

import pytest

from xo_devnet import sidecar
from xo_devnet.launcher import CHIPS_TP, PROCESSORS, RPS_TP, XO_TP
from xo_devnet.sidecar import ProcessorSidecar, connectable


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def alive(pid: int) -> bool:
    """Running, not merely a zombie waiting for a parent (in a container, PID 1 may never reap it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        return True


def test_the_processors_are_this_interpreters_xo_tp_rps_tp_and_chips_tp_pointed_at_the_endpoint():
    xo, rps, chips = PROCESSORS
    assert (xo, rps, chips) == (XO_TP, RPS_TP, CHIPS_TP)
    assert (chips.name, chips.families) == ("chips-tp", (("chips", "1.0"),))
    assert (xo.name, xo.families) == ("xo-tp", (("xo", "1.0"),))
    assert (rps.name, rps.families) == ("rps-tp", (("rps", "2.0"), ("rps", "1.0")))
    assert xo.command("tcp://127.0.0.1:4004", 0) == [sys.executable, "-m", "xo_tp.cli", "-C", "tcp://127.0.0.1:4004"]
    assert rps.command("tcp://127.0.0.1:4004", 2) == [
        sys.executable, "-m", "rps_tp.cli", "-C", "tcp://127.0.0.1:4004", "-vv",
    ]  # fmt: skip
    assert xo.command("tcp://127.0.0.1:4004", -1)[-1] == "-q"


def test_wildcard_bind_addresses_are_connected_to_on_this_machine():
    assert connectable("tcp://*:4004") == "tcp://127.0.0.1:4004"
    assert connectable("tcp://0.0.0.0:4004") == "tcp://127.0.0.1:4004"
    assert connectable("tcp://[::]:4004") == "tcp://[::1]:4004"
    assert connectable("tcp://10.0.0.5:4004") == "tcp://10.0.0.5:4004"


def test_a_processor_that_keeps_dying_is_restarted_with_back_off(monkeypatch, caplog):
    monkeypatch.setattr(sidecar, "RESTART_DELAYS", (0.05, 0.1, 0.2))

    async def scenario() -> int:
        runner = ProcessorSidecar(python("import sys; sys.exit(3)"), "dying-tp")
        await runner.start()
        deadline = time.monotonic() + 20
        while runner.restarts < 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await runner.stop()
        return runner.restarts

    assert asyncio.run(scenario()) >= 3
    assert "dying-tp (pid" in caplog.text
    assert "exited with code 3; restarting in 0.1 s" in caplog.text


def test_stop_ends_the_processor_with_sigterm():
    async def scenario() -> int:
        runner = ProcessorSidecar(python("import time; time.sleep(60)"))
        await runner.start()
        pid = runner.pid
        started = time.monotonic()
        await runner.stop()
        assert time.monotonic() - started < 5
        assert runner.restarts == 0
        return pid

    assert not alive(asyncio.run(scenario()))


def test_a_processor_that_ignores_sigterm_is_killed_after_the_grace_period(monkeypatch, tmp_path):
    monkeypatch.setattr(sidecar, "STOP_GRACE_SECONDS", 0.5)
    ready = tmp_path / "ready"
    code = (
        "import pathlib, signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        f"pathlib.Path({str(ready)!r}).touch()\n"
        "time.sleep(60)\n"
    )

    async def scenario() -> tuple[int, float]:
        runner = ProcessorSidecar(python(code))
        await runner.start()
        deadline = time.monotonic() + 30
        while not ready.exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        started = time.monotonic()
        await runner.stop()
        return runner.pid, time.monotonic() - started

    pid, stop_seconds = asyncio.run(scenario())
    assert not alive(pid)
    assert stop_seconds >= 0.5


@pytest.mark.skipif(sys.platform != "linux", reason="parent-death signal is Linux-only")
def test_the_processor_dies_with_a_killed_devnet(tmp_path):
    pid_file = tmp_path / "child.pid"
    parent = (
        "import asyncio, sys\n"
        "from xo_devnet.sidecar import ProcessorSidecar\n"
        "async def main():\n"
        f"    runner = ProcessorSidecar([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "    await runner.start()\n"
        f"    open({str(pid_file)!r}, 'w').write(str(runner.pid))\n"
        "    await asyncio.sleep(60)\n"
        "asyncio.run(main())\n"
    )
    process = subprocess.Popen([sys.executable, "-c", parent])
    try:
        deadline = time.monotonic() + 30
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pid_file.read_text())
        assert alive(child)
    finally:
        process.kill()
        process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child)
