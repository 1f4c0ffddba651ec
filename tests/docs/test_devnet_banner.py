"""docs/devnet.md shows xo-devnet's banner as xo-devnet prints it on a new chain (its own keys and paths aside).

The chips each key is shown with are what a new chain's genesis gives them (xo_devnet.genesis), read back
the way xo-devnet reads them from its head's state.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.docs.markdown import DOCS, REPO_ROOT
from xo_core.keyfiles import DEFAULT_KEY_DIR
from xo_devnet.banner import ProcessorStatus, ReadyInfo, banner
from xo_devnet.genesis import ISSUER_KEY_NAME, genesis_state
from xo_devnet.key_chips import key_chips
from xo_devnet.launcher import PROCESSOR_FAMILIES, PROCESSORS
from xo_devnet.player_keys import PLAYERS, PlayerKey

FIRST_PID = 32260
"""The documented processors' pids: any numbers, one after another, after the MQTT broker's (started first)."""


def documented_banner() -> str:
    text = (DOCS / "devnet.md").read_text(encoding="utf-8")
    return text.split("```\nxo-devnet ", 1)[1].split("```", 1)[0].rstrip("\n").join(("xo-devnet ", ""))


def test_the_documented_banner_is_what_xo_devnet_prints_on_the_default_ports_and_paths():
    documented = documented_banner()
    keys = dict(re.findall(r"^    ([\w-]+) +([0-9a-f]{66}) \(new\)", documented, flags=re.MULTILINE))
    players = [keys[name] for name in PLAYERS]
    home = Path.home()
    info = ReadyInfo(
        rest_url="http://127.0.0.1:8008",
        component_endpoint="tcp://127.0.0.1:4004",
        broker_url="mqtt://127.0.0.1:1883",
        broker_pid=FIRST_PID - 1,
        data_dir=home / ".local" / "share" / "xo-devnet",
        processors=tuple(
            ProcessorStatus(processor.name, FIRST_PID + index, processor.families, True)
            for index, processor in enumerate(PROCESSORS)
        ),
        families=tuple(sorted(PROCESSOR_FAMILIES)),
        key_dir=DEFAULT_KEY_DIR.expanduser(),
        keys=tuple(PlayerKey(name, public_key, created=True) for name, public_key in keys.items()),
        chips=key_chips(genesis_state(keys[ISSUER_KEY_NAME], players).get, keys.values()),
    )
    assert list(keys) == [*PLAYERS, ISSUER_KEY_NAME], "the players, then the issuer, as xo-devnet makes them"
    assert documented == banner(info).replace(str(home), "/home/you")


def test_the_readme_names_every_key_command_1_makes_as_the_banner_shows_them():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    made = [*PLAYERS, ISSUER_KEY_NAME]
    [sentence] = [line for line in " ".join(readme.split("\n")).split(". ") if "Command 1 prints a banner" in line]
    assert re.findall(r"`([\w-]+)`", sentence) == made
    key_lines = re.compile(r"^    [\w-]+ +[0-9a-f]{66} .*$", flags=re.MULTILINE)
    assert key_lines.findall(readme) == key_lines.findall(documented_banner())
    assert [line.split()[0] for line in key_lines.findall(readme)] == made
    faucet = re.compile(r"^  chips for a new key .*$", flags=re.MULTILINE)
    assert faucet.findall(readme) == faucet.findall(documented_banner()) != [], "how a new key gets chips"
