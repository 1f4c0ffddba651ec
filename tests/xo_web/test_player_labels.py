"""The page names a player as the commands do: a key's name alone, else its first characters; rps settings alike.

Node runs the page's pure modules (``labels.js``, ``rps_labels.js``) on the same keys and settings as Python's
``client_core.keys.key_label`` and ``rps_tp.game.describe_settings`` (no browser needed); without Node the test
skips saying why, and fails in CI, where ``.ci/run`` has it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from client_core.keys import KeyNames, key_label
from rps_tp.game import Settings, describe_settings

JS = Path(__file__).parents[2] / "xo_web" / "static" / "js"
ALICE, STRANGER = "02" + "a1" * 32, "03" + "5e" * 32
NAMES = KeyNames({ALICE: "alice"})


def run_node(script: str) -> object:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is not installed: CI must run the page's labels")
        pytest.skip("node is not installed: the page's labels cannot be run outside a browser")
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=30,
                          check=True)  # fmt: skip
    return json.loads(done.stdout)


def test_a_named_key_is_its_name_alone_on_the_page_and_in_the_commands():
    players = [(ALICE, "alice"), (STRANGER, None)]
    script = (
        f"import {{ playerLabel }} from {json.dumps((JS / 'labels.js').as_uri())};\n"
        f"import {{ seatLabel }} from {json.dumps((JS / 'rps_labels.js').as_uri())};\n"
        f"const players = {json.dumps(players)};\n"
        "console.log(JSON.stringify([players.map(([key, name]) => playerLabel(key, name)),"
        " players.map(([key, name]) => seatLabel({ key, name }))]));"
    )
    page_xo, page_rps = run_node(script)
    commands = [key_label(key, NAMES) for key, _ in players]
    assert commands == ["alice", "035e5e..."]
    assert page_xo == page_rps == ["alice", "035e5e…"], "the page's ellipsis is one character, the rest as the commands"
    assert [shown.replace("…", "...") for shown in page_xo] == commands


def test_rps_settings_read_the_same_on_the_page_and_in_the_commands():
    settings = [Settings(1, 300), Settings(2, 60), Settings(3, 7200)]
    script = (
        f"import {{ settingsText }} from {json.dumps((JS / 'rps_labels.js').as_uri())};\n"
        f"const settings = {json.dumps([{'points': s.points, 'timeout': s.timeout} for s in settings])};\n"
        "console.log(JSON.stringify(settings.map(settingsText)));"
    )
    assert run_node(script) == [describe_settings(s) for s in settings] == [
        "first to 1 point, 5 min 0 s to act", "first to 2 points, 60 s to act", "first to 3 points, 2 h 0 min to act",
    ]  # fmt: skip
