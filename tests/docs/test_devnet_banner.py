"""docs/devnet.md shows xo-devnet's banner as xo-devnet prints it (its own keys and paths aside)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.docs.markdown import DOCS
from xo_core.keyfiles import DEFAULT_KEY_DIR
from xo_devnet.banner import ProcessorStatus, ReadyInfo, banner
from xo_devnet.launcher import PROCESSOR_FAMILIES, PROCESSORS
from xo_devnet.player_keys import PlayerKey

FIRST_PID = 32260
"""The documented processors' pids: any numbers, one after another."""


def documented_banner() -> str:
    text = (DOCS / "devnet.md").read_text(encoding="utf-8")
    return text.split("```\nxo-devnet ", 1)[1].split("```", 1)[0].rstrip("\n").join(("xo-devnet ", ""))


def test_the_documented_banner_is_what_xo_devnet_prints_on_the_default_ports_and_paths():
    documented = documented_banner()
    keys = dict(re.findall(r"^    (\w+) +([0-9a-f]{66}) \(new\)$", documented, flags=re.MULTILINE))
    home = Path.home()
    info = ReadyInfo(
        rest_url="http://127.0.0.1:8008",
        component_endpoint="tcp://127.0.0.1:4004",
        broker_url="mqtt://127.0.0.1:1883",
        data_dir=home / ".local" / "share" / "xo-devnet",
        processors=tuple(
            ProcessorStatus(processor.name, FIRST_PID + index, processor.families, True)
            for index, processor in enumerate(PROCESSORS)
        ),
        families=tuple(sorted(PROCESSOR_FAMILIES)),
        key_dir=DEFAULT_KEY_DIR.expanduser(),
        keys=tuple(PlayerKey(name, public_key, created=True) for name, public_key in keys.items()),
    )
    assert sorted(keys) == ["alice", "bob"]
    assert documented == banner(info).replace(str(home), "/home/you")
