"""scripts/real-sawtooth, the one command that runs the integration suite against real Sawtooth: what it refuses.

Running it for real takes minutes (it is CI's step, and a developer's check); these tests check that without what
it needs it stops at once, exit 2, saying what to do.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "real-sawtooth"


def run(script: Path, **environment: str) -> subprocess.CompletedProcess[str]:
    kept = {name: value for name, value in os.environ.items() if not name.startswith(("REALSAW_", "XO_"))}
    return subprocess.run(
        ["bash", str(script)], env={**kept, **environment}, capture_output=True, text=True, timeout=60, check=False
    )


def test_without_the_real_sawtooth_folder_it_says_which_knob_names_it(tmp_path):
    copy = tmp_path / "repo" / "scripts" / "real-sawtooth"
    copy.parent.mkdir(parents=True)
    shutil.copy(SCRIPT, copy)

    done = run(copy, REALSAW_SOURCE=str(tmp_path / "nowhere"))

    assert done.returncode == 2, done
    assert "no real-sawtooth/build.sh in" in done.stderr and "set REALSAW_SOURCE to its folder" in done.stderr


def test_outside_the_readme_venv_it_says_to_activate_it(tmp_path):
    source = tmp_path / "real-sawtooth"
    source.mkdir()
    (source / "build.sh").write_text("#!/bin/sh\nexit 1\n")
    (source / "build.sh").chmod(0o755)
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("git", "bash", "dirname", "python3"):
        found = shutil.which(tool, path="/usr/bin:/bin")
        if found:
            (bare / tool).symlink_to(found)

    done = run(SCRIPT, REALSAW_SOURCE=str(source), PATH=str(bare))

    assert done.returncode == 2, done
    assert "activate the README's venv first" in done.stderr


def test_ci_runs_the_developers_command_once_after_the_first_pythons_quick_start():
    run = (SCRIPT.parents[1] / ".ci" / "run").read_text(encoding="utf-8")
    calls = [line.strip() for line in run.splitlines() if line.startswith(("quick_start ", "real_sawtooth ", "for "))]
    assert calls[:3] == [
        'quick_start "$(command -v "${XO_CI_PYTHON:-python3.11}" || find_python 3.11)" again',
        'real_sawtooth "$readme_clone"',
        "for version in 3.12 3.13; do",
    ]
    [function] = re.findall(r"^real_sawtooth\(\) \{\n(.*?)^\}", run, flags=re.MULTILINE | re.DOTALL)
    assert 'PATH="$work/xo/.venv/bin:$PATH"' in function
    assert 'REALSAW_SOURCE="$repo/../shared/real-sawtooth" scripts/real-sawtooth' in function


def test_a_validator_that_started_a_block_validation_and_never_finished_it_counts_as_wedged(tmp_path):
    started = "[04:00:15.981 INFO     block_validator] Starting block validation of : a6246ed7 (block_num:11)\n"
    finished = "[04:00:15.990 INFO     block_validator] Finished block validation of: a6246ed7 (block_num:11)\n"
    (tmp_path / "validator-0.log").write_text(started + finished + started)
    (tmp_path / "validator-1.log").write_text(started + finished)
    (tmp_path / "validator-2.log").write_text(started)
    (tmp_path / "rest-api-0.log").write_text(started)
    function = re.search(r"^wedged_validators\(\) \{\n.*?^\}\n", SCRIPT.read_text(), flags=re.MULTILINE | re.DOTALL)
    assert function is not None

    done = subprocess.run(
        ["bash", "-c", f'{function.group(0)}\nwedged_validators "$1"', "bash", str(tmp_path)],
        capture_output=True, text=True, timeout=10, check=True,
    )  # fmt: skip

    assert done.stdout == "validator-0 validator-2\n"
