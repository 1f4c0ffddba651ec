"""What xo-devnet prints when ready, and the ready file scripts wait for."""

import json
import os
from pathlib import Path

from xo_devnet.banner import ReadyInfo, banner, write_ready_file
from xo_devnet.player_keys import PlayerKey

KEYS = (PlayerKey("alice", "02" + "a" * 64, created=True), PlayerKey("bob", None, created=False, problem="unreadable"))


def info(**changes) -> ReadyInfo:
    fields = {
        "rest_url": "http://127.0.0.1:8008",
        "component_endpoint": "tcp://127.0.0.1:4004",
        "data_dir": Path("/data/xo"),
        "processor_pid": 42,
        "processor_registered": True,
        "key_dir": Path("/keys"),
        "keys": KEYS,
    }
    return ReadyInfo(**(fields | changes))


def test_the_banner_says_where_everything_is_and_how_to_play():
    text = banner(info())
    for expected in (
        "REST API               http://127.0.0.1:8008",
        "component endpoint     tcp://127.0.0.1:4004",
        "data dir               /data/xo",
        "xo-tp, pid 42, registered",
        "alice  02" + "a" * 64 + " (new)",
        "bob    unusable: unreadable",
        "xo create game1 --username alice --wait\n",
    ):
        assert expected in text


def test_a_non_default_url_is_passed_to_the_example_commands():
    text = banner(info(rest_url="http://127.0.0.1:9999", data_dir=None, processor_pid=None))
    assert "xo show game1 --url http://127.0.0.1:9999" in text
    assert "(ephemeral" in text
    assert "none (--no-tp)" in text


def test_the_ready_file_is_json_with_the_bound_addresses(tmp_path):
    path = tmp_path / "sub" / "ready.json"
    write_ready_file(path, info(data_dir=None))
    document = json.loads(path.read_text())
    assert document["rest_url"] == "http://127.0.0.1:8008"
    assert document["component_endpoint"] == "tcp://127.0.0.1:4004"
    assert document["data_dir"] is None
    assert document["pid"] == os.getpid()
    assert document["keys"] == {"alice": "02" + "a" * 64, "bob": None}
    assert list(path.parent.iterdir()) == [path]
