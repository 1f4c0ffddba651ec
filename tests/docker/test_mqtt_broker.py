"""Each network runs the players' MQTT broker (eclipse-mosquitto): published on 127.0.0.1:1883, configured by the
repository's docker/mosquitto/mosquitto.conf, its sessions kept in a volume, and named by the shell's and the
integration suite's $XO_BROKER.
That configuration itself runs under Debian's mosquitto and keeps what is sent to a player who is offline."""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

import pytest

from client_core.broker import BrokerAddress, BrokerSession
from tests.docker.compose_files import (
    DOCKER_DIR,
    NETWORKS,
    TEST_OVERRIDES,
    TEST_SERVICE,
    argv,
    document,
    program,
    services,
)
from tests.mosquitto import running_config

MOSQUITTO = "/usr/sbin/mosquitto"
CONFIG = DOCKER_DIR / "mosquitto" / "mosquitto.conf"
SECONDS = 5.0


def directives(path: Path) -> dict[str, list[str]]:
    """mosquitto.conf as {directive: [its values, in order]}, comments and blank lines left out."""
    found: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.strip().partition(" ")
            found.setdefault(name, []).append(value.strip())
    return found


def the_broker(network: str) -> tuple[str, dict[str, Any]]:
    (found,) = [(name, service) for name, service in services(network).items() if program(service) == MOSQUITTO]
    return found


@pytest.mark.parametrize("network", NETWORKS)
def test_the_broker_runs_the_repository_s_config_and_keeps_its_data_in_a_volume(network: str) -> None:
    _, broker = the_broker(network)
    [config_path] = [argument for flag, argument in zip(argv(broker), argv(broker)[1:], strict=False) if flag == "-c"]
    mounts = dict(reversed(volume.split(":")[:2]) for volume in broker["volumes"])
    assert (DOCKER_DIR / mounts[config_path]).resolve() == CONFIG
    [data_dir] = directives(CONFIG)["persistence_location"]
    assert mounts[data_dir.rstrip("/")] in document(network)["volumes"]  # a named volume: kept across `down`


@pytest.mark.parametrize("network", NETWORKS)
def test_the_broker_is_published_on_localhost_on_the_port_it_listens_on(network: str) -> None:
    _, broker = the_broker(network)
    [listener] = directives(CONFIG)["listener"]
    port = listener.split()[0]
    assert broker["ports"] == [f"127.0.0.1:1883:{port}"]  # unless XO_BROKER_PORT moves it (test_compose_networks)


@pytest.mark.parametrize("network", NETWORKS)
@pytest.mark.parametrize("player", ["shell", TEST_SERVICE])
def test_the_players_find_the_broker_of_their_network(network: str, player: str) -> None:
    """The shell's players, and the integration suite's chips matches, which skip without a broker."""
    name, _ = the_broker(network)
    address = BrokerAddress.parse(services(network, TEST_OVERRIDES[network])[player]["environment"]["XO_BROKER"], {})
    [listener] = directives(CONFIG)["listener"]
    assert (address.scheme, address.host, address.port) == ("mqtt", name, int(listener.split()[0]))


def test_the_config_admits_players_and_keeps_their_sessions() -> None:
    config = directives(CONFIG)
    assert config["allow_anonymous"] == ["true"]  # published on loopback only (checked above)
    assert config["persistence"] == ["true"]
    assert int(config["max_queued_messages"][0]) >= 100


def test_the_config_keeps_what_is_sent_to_a_player_who_is_offline(tmp_path: Path) -> None:
    """The very file, under Debian's mosquitto on a free port: bob subscribes, leaves, alice sends, bob returns."""
    with running_config(tmp_path, CONFIG.read_text(encoding="utf-8")) as broker:
        where = BrokerAddress.parse(f"mqtt://127.0.0.1:{broker.port}", {})
        inbox: queue.Queue[bytes] = queue.Queue()
        opened: list[BrokerSession] = []
        try:
            bob = BrokerSession(where, "docker-bob", lambda topic, payload: None)
            opened.append(bob)
            bob.connect(SECONDS)
            bob.subscribe("xo/chips/c1/bob", SECONDS)
            bob.close()
            alice = BrokerSession(where, "docker-alice", lambda topic, payload: None)
            opened.append(alice)
            alice.connect(SECONDS)
            alice.publish("xo/chips/c1/bob", b"sent while bob was away", SECONDS)
            back = BrokerSession(where, "docker-bob", lambda topic, payload: inbox.put(payload))
            opened.append(back)
            back.connect(SECONDS)
            assert inbox.get(timeout=SECONDS) == b"sent while bob was away"
        finally:
            for session in opened:
                session.close()

