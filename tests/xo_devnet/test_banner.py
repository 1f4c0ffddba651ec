"""What xo-devnet prints when ready, and the ready file scripts wait for."""

import json
import os
from pathlib import Path

from xo_core.keyfiles import DEFAULT_KEY_DIR
from xo_devnet.banner import ProcessorStatus, ReadyInfo, banner, remove_ready_file, write_ready_file
from xo_devnet.key_chips import KeyChips
from xo_devnet.player_keys import PlayerKey

KEYS = (PlayerKey("alice", "02" + "a" * 64, created=True), PlayerKey("bob", None, created=False, problem="unreadable"))
PROCESSORS = (
    ProcessorStatus("xo-tp", 42, (("xo", "1.0"),), registered=True),
    ProcessorStatus("rps-tp", 43, (("rps", "1.0"),), registered=False),
)


def info(**changes) -> ReadyInfo:
    fields = {
        "rest_url": "http://127.0.0.1:8008",
        "component_endpoint": "tcp://127.0.0.1:4004",
        "broker_url": "mqtt://127.0.0.1:1883",
        "data_dir": Path("/data/xo"),
        "processors": PROCESSORS,
        "families": (("intkey", "1.0"), ("rps", "1.0"), ("xo", "1.0")),
        "key_dir": DEFAULT_KEY_DIR.expanduser(),
        "keys": KEYS,
    }
    return ReadyInfo(**(fields | changes))


def test_the_banner_says_where_everything_is_and_how_to_play():
    text = banner(info())
    for expected in (
        "REST API               http://127.0.0.1:8008",
        "metrics, health        http://127.0.0.1:8008/metrics (Prometheus), http://127.0.0.1:8008/health",
        "component endpoint     tcp://127.0.0.1:4004",
        "MQTT broker            mqtt://127.0.0.1:1883",
        "data dir               /data/xo",
        "  transaction processors xo-tp (xo 1.0), pid 42, registered\n"
        "                         rps-tp (rps 1.0), pid 43, not registered yet: batches wait for it\n"
        "  BlockInfo              built into the ledger: it opens every block\n",
        "families accepted      intkey 1.0, rps 1.0, xo 1.0",
        "  keys in " + str(DEFAULT_KEY_DIR.expanduser()) + ":\n    alice 02" + "a" * 64 + " (new)\n",
        "    bob   unusable: unreadable\n",
        "xo create game1 --username alice --wait\n",
    ):
        assert expected in text


def test_a_non_default_url_is_passed_to_the_example_commands():
    text = banner(info(rest_url="http://127.0.0.1:9999", data_dir=None, processors=()))
    assert "xo show game1 --url http://127.0.0.1:9999" in text
    assert "(ephemeral" in text
    assert (
        "transaction processors none (--no-tp): connect your own, e.g. xo-tp -C tcp://127.0.0.1:4004, rps-tp -C"
        " tcp://127.0.0.1:4004 and chips-tp -C tcp://127.0.0.1:4004\n" in text
    )


def test_without_a_broker_the_banner_says_so_and_the_ready_file_has_null(tmp_path):
    assert "  MQTT broker            none (--no-broker)\n" in banner(info(broker_url=None))
    write_ready_file(tmp_path / "ready.json", info(broker_url=None))
    document = json.loads((tmp_path / "ready.json").read_text())
    assert (document["broker_url"], document["broker_pid"]) == (None, None)


def test_the_brokers_process_is_named_beside_its_url_as_the_processors_are(tmp_path):
    assert "  MQTT broker            mqtt://127.0.0.1:1883, pid 41\n" in banner(info(broker_pid=41))
    write_ready_file(tmp_path / "ready.json", info(broker_pid=41))
    assert json.loads((tmp_path / "ready.json").read_text())["broker_pid"] == 41


def test_a_non_default_key_dir_is_passed_to_every_example_command_shell_quoted():
    text = banner(info(key_dir=Path("/home/me/xo keys")))
    commands = [line.strip() for line in text.splitlines() if line.startswith("  xo ")]
    assert len(commands) == 4
    assert all(command.endswith(" --key-dir '/home/me/xo keys'") for command in commands)


def test_with_default_url_and_key_dir_the_example_commands_need_no_flags():
    text = banner(info())
    assert "--key-dir" not in text
    assert "--url" not in text


def test_an_ipv6_url_is_quoted_so_the_shell_does_not_glob_it():
    assert "xo show game1 --url 'http://[::1]:8008'" in banner(info(rest_url="http://[::1]:8008"))


def test_the_ready_file_is_json_with_the_bound_addresses(tmp_path):
    path = tmp_path / "sub" / "ready.json"
    write_ready_file(path, info(data_dir=None))
    document = json.loads(path.read_text())
    assert document["rest_url"] == "http://127.0.0.1:8008"
    assert document["component_endpoint"] == "tcp://127.0.0.1:4004"
    assert document["broker_url"] == "mqtt://127.0.0.1:1883"
    assert document["data_dir"] is None
    assert document["pid"] == os.getpid()
    assert document["keys"] == {"alice": "02" + "a" * 64, "bob": None}
    assert document["families"] == ["intkey:1.0", "rps:1.0", "xo:1.0"]
    assert document["processors"] == [
        {"command": "xo-tp", "pid": 42, "families": ["xo:1.0"], "registered": True, "metrics": None},
        {"command": "rps-tp", "pid": 43, "families": ["rps:1.0"], "registered": False, "metrics": None},
    ]
    assert document["chips"] == {}
    assert list(path.parent.iterdir()) == [path]


def test_the_ready_file_is_removed_on_stop_while_it_is_ours(tmp_path):
    path = tmp_path / "ready.json"
    write_ready_file(path, info())
    remove_ready_file(path)
    assert not path.exists()
    remove_ready_file(path)


def test_a_ready_file_another_devnet_wrote_since_is_left_alone(tmp_path):
    path = tmp_path / "ready.json"
    for text in (json.dumps({"pid": os.getpid() + 1, "rest_url": "http://127.0.0.1:9"}), "not json", "[1]"):
        path.write_text(text)
        remove_ready_file(path)
        assert path.read_text() == text


ISSUER = PlayerKey("chips-issuer", "03" + "c" * 64, created=False)


def test_the_banner_says_which_keys_hold_chips_and_which_may_issue_them(tmp_path):
    chips = {"02" + "a" * 64: KeyChips(1000, issuer=False), ISSUER.public_key: KeyChips(None, issuer=True)}
    shown = info(keys=(*KEYS, ISSUER), chips=chips)
    text = banner(shown)
    assert "    alice        02" + "a" * 64 + " (new), 1,000 chips\n" in text
    assert "    bob          unusable: unreadable\n" in text
    assert "    chips-issuer 03" + "c" * 64 + ", may issue chips\n" in text
    write_ready_file(tmp_path / "ready.json", shown)
    document = json.loads((tmp_path / "ready.json").read_text())
    assert document["chips"] == {
        "alice": {"balance": 1000, "issuer": False},
        "chips-issuer": {"balance": None, "issuer": True},
    }


def test_a_processor_serving_metrics_says_where_in_the_banner_and_the_ready_file(tmp_path):
    served = ProcessorStatus("xo-tp", 42, (("xo", "1.0"),), True, "http://127.0.0.1:9401/metrics")
    shown = info(processors=(served, PROCESSORS[1]))
    text = banner(shown)
    assert "transaction processors xo-tp (xo 1.0), pid 42, registered, metrics http://127.0.0.1:9401/metrics\n" in text
    assert "rps-tp (rps 1.0), pid 43, not registered yet: batches wait for it\n" in text
    write_ready_file(tmp_path / "ready.json", shown)
    processors = json.loads((tmp_path / "ready.json").read_text())["processors"]
    assert [processor["metrics"] for processor in processors] == ["http://127.0.0.1:9401/metrics", None]


def test_a_ledger_that_takes_chips_says_how_a_new_key_gets_some_and_passes_the_flags():
    with_chips = (("chips", "1.0"), ("xo", "1.0"))
    text = banner(info(families=with_chips))
    assert "\n  chips for a new key    chips faucet --username NAME: up to 1,000 a key an hour\n" in text
    elsewhere = banner(info(families=with_chips, rest_url="http://127.0.0.1:9999", key_dir=Path("/k")))
    assert "chips faucet --username NAME --url http://127.0.0.1:9999 --key-dir /k: up to 1,000" in elsewhere
    assert "faucet" not in banner(info()), "no chips family, no faucet to name"
