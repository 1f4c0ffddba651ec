"""The page says a span of time as the commands do: ``xo_web/static/js/time.js`` and ``xo_core.text.duration`` agree.

Node runs the page's module on the same numbers as Python (no browser needed); without Node the test skips
saying why, and fails in CI, where ``.ci/run`` has it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from xo_core.text import duration

TIME_JS = Path(__file__).parents[2] / "xo_web" / "static" / "js" / "time.js"
SECONDS = [-5, 0, 0.2, 1, 42, 59.5, 60, 119, 120, 121, 3172, 3595, 3599, 3600, 3661, 7500, 86_399, 86_400, 266_400]


def node_durations(values: list[float]) -> list[str]:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is not installed: CI must run the page's formatter")
        pytest.skip("node is not installed: the page's duration formatter cannot be run outside a browser")
    script = f"import {{ duration }} from {json.dumps(TIME_JS.as_uri())};\n" \
             f"console.log(JSON.stringify({json.dumps(values)}.map(duration)));"  # fmt: skip
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=30,
                          check=True)  # fmt: skip
    return json.loads(done.stdout)


def test_the_command_words_for_a_span_of_time():
    said = [duration(seconds) for seconds in (0, 0.2, 42, 119, 120, 3595, 3600, 7500, 3 * 86_400 + 3600)]
    assert said == ["0 s", "1 s", "42 s", "119 s", "2 min 0 s", "59 min 55 s", "1 h 0 min", "2 h 5 min", "3 d 1 h"]


def test_the_page_says_every_span_of_time_as_the_commands_do():
    assert node_durations(SECONDS) == [duration(seconds) for seconds in SECONDS]


def test_no_text_of_the_page_counts_time_in_bare_seconds():
    """``3172 s left`` and ``3600 s to answer a challenge`` were the page's; now every count goes through duration."""
    scripts = {path.name: path.read_text(encoding="utf-8") for path in TIME_JS.parent.glob("*.js")}
    bare = ["${left} s left", "challenge_seconds} s", "${seconds} s"]
    assert [(name, form) for name, text in scripts.items() for form in bare if form in text] == []
    for name in ("chips.js", "offers.js", "rps.js"):
        assert 'import { duration } from "./time.js";' in scripts[name], name
