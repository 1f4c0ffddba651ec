"""Every benchmark still runs: each ``benchmarks/*.py`` with ``--smoke``, as a process of its own.

A benchmark nobody runs rots (``tp_throughput.py --family rps`` once reported 8,112 errors in
20,000 transactions, its model of the processor out of date). ``--smoke`` makes a few iterations
of every mode the script has; no figure is asserted, only that it exits 0 and that every JSON line
it prints reports no errors. A script that cannot run here says why in a ``skipped`` line, and the
test is skipped with that reason, never counted as a pass. The scripts are discovered, so a new
benchmark is covered the day it lands; a file whose name starts with ``_`` is a helper the
benchmarks start, not a benchmark.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.together import SideBySide, selected, side_by_side_here
from tests.xo_web.browser import chromium_executable

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPTS = sorted(path for path in BENCHMARKS.glob("*.py") if not path.name.startswith("_"))
#: Scripts that drive a browser: they need Debian's Chromium, as the browser tests do.
BROWSER_SCRIPTS = {"web_latency.py"}
SMOKE_TIMEOUT = 90.0
#: Smoke runs at once: most of one is waiting (a ledger starting, a deadline passing), so three side by side take
#: about the time of the longest rather than the sum, without starving the tests on the other worker.
AT_ONCE = 3


def json_lines(stdout: str) -> list[dict[str, object]]:
    """The JSON objects a benchmark printed, one a line (any other line is not a result)."""
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def test_the_benchmarks_are_found() -> None:
    names = {path.name for path in SCRIPTS}
    assert {"tp_throughput.py", "engine_throughput.py", "cli_latency.py"} <= names
    assert "_watchers.py" not in names


def test_an_error_count_in_a_line_is_seen() -> None:
    printed = 'tp_throughput: starting\n{"processor": "rps-tp", "errors": 3}\n{"processor": "xo-tp", "errors": 0}\n'
    assert [line.get("errors") for line in json_lines(printed)] == [3, 0]


def smoke_run(script: Path, workdir: Path) -> subprocess.CompletedProcess[str]:
    """``script --smoke`` to its end, in a directory of its own."""
    command = [sys.executable, str(script), "--smoke"]
    if script.name in BROWSER_SCRIPTS:
        command += ["--chromium", chromium_executable()]
    cwd = workdir / script.stem
    cwd.mkdir()
    # the scripts' temporary files go to the usual place: under tmp_path, Chromium's socket path would be too long
    return subprocess.run(command, capture_output=True, text=True, timeout=SMOKE_TIMEOUT, cwd=cwd, check=False)


@pytest.fixture(scope="module")
def smoke_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SideBySide]:
    """The selected scripts' smoke runs, AT_ONCE at a time from the first test on (see tests/together.py)."""
    together = side_by_side_here(request.config, request.node.nodeid)
    scripts = selected(request, test_benchmark_runs_in_smoke_mode, "script") if together else []
    workdir = tmp_path_factory.mktemp("smoke")
    runs = SideBySide(lambda script: smoke_run(script, workdir), scripts, AT_ONCE)
    yield runs
    runs.close()


@pytest.mark.parametrize("script", SCRIPTS, ids=[path.stem for path in SCRIPTS])
def test_benchmark_runs_in_smoke_mode(script: Path, smoke_runs: SideBySide) -> None:
    done = smoke_runs.result(script)
    assert done.returncode == 0, f"{script.name} --smoke exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    results = json_lines(done.stdout)
    assert results, f"{script.name} --smoke printed no JSON line:\n{done.stdout}"
    skipped = [result["skipped"] for result in results if "skipped" in result]
    if skipped:  # the script could not run here (ACA-Py needs Python 3.12+): a skip with its reason, never a pass
        pytest.skip(f"{script.name}: {skipped[0]}")
    for result in results:
        assert result.get("errors", 0) == 0, f"{script.name} --smoke reported errors: {result}"
