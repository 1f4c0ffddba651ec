"""Tournaments through the local server against xo-devnet and its broker: listed live, joined, and played from the
page against a ``chips tournament play --bot`` in another home.

Alice takes part through the server (``POST /api/tournaments/play``): it starts the
tournament, and her match opens as any staked match the server plays for the page, her
moves going in by ``POST /api/chips/move``; Bob is a bot process. The server records the
results and advances the rounds it is due to, and the page's list shows the standings
and the payout.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from client_core.broker import BrokerAddress
from tests.xo_web.local_server import Answer, EventReader, LocalServer
from xo_devnet.spawn import DevnetProcess

TOURNAMENT_SECONDS = 90.0


@pytest.fixture(scope="module")
def chips_server(devnet: DevnetProcess, broker: BrokerAddress) -> Iterator[LocalServer]:
    with LocalServer(devnet.rest_url, devnet.key_dir, broker=broker) as running:
        yield running


def post(server: LocalServer, path: str, **fields: object) -> Answer:
    body = json.dumps(fields).encode()
    return server.request("POST", f"/api/tournaments/{path}", headers=server.page_headers(), body=body)


def listed(server: LocalServer, name: str) -> dict:
    return next(t for t in server.get_json("/api/tournaments")["tournaments"] if t["name"] == name)


def chips(devnet: DevnetProcess, who: str, *argv: str) -> list[str]:
    return [sys.executable, "-m", "chips_cli.main", "--url", devnet.rest_url, "--key-dir", str(devnet.key_dir),
            "--username", who, *argv]  # fmt: skip


def test_a_player_joins_and_plays_a_tournament_from_the_page_against_a_bot(chips_server, devnet, broker):
    keys = {name: (devnet.key_dir / f"{name}.pub").read_text().strip() for name in ("alice", "bob")}
    terms = ("--game", "xo", "--format", "knockout", "--buy-in", "5", "--players", "2..2", "--join-for", "5m",
             "--round-for", "30s", "--prizes", "100")  # fmt: skip
    command = chips(devnet, "bob", "tournament", "create", "web cup", *terms)
    created = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert created.returncode == 0, created.stderr
    assert listed(chips_server, "web cup")["status"] == "joining"

    for name in ("alice", "bob"):
        joined = post(chips_server, "join", player=name, tournament="web cup")
        assert joined.status == 200, joined.body
        assert joined.json()["message"] == "You joined tournament 'web cup': your buy-in of 5 chips is in its pool."
    again = post(chips_server, "join", player="alice", tournament="web cup")
    assert again.status == 409 and "you are in tournament 'web cup' already" in again.json()["error"]["message"]
    assert post(chips_server, "join", player="alice", tournament="").status == 400
    assert post(chips_server, "play", player="alice", tournament="nowhere").status == 409

    bot = subprocess.Popen(chips(devnet, "bob", "tournament", "play", "web cup", "--bot", "random", "--broker",
                                 f"mqtt://{broker.host}:{broker.port}"), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)  # fmt: skip
    try:
        with EventReader(chips_server) as events:
            started = post(chips_server, "play", player="alice", tournament="web cup")
            assert started.status == 200, started.body
            assert "Taking part in tournament 'web cup'" in started.json()["message"]
            parts = chips_server.get_json("/api/tournaments")["taking_part"]
            assert {"key": keys["alice"], "tournament": "web cup", "stopped": None} in parts
            ends = time.monotonic() + TOURNAMENT_SECONDS
            while time.monotonic() < ends:
                _, data = events.next("chips")
                if data["player"] != keys["alice"]:
                    continue
                if not data["playing"]:
                    break
                if data["wanted"] is not None and data["wanted"]["kind"] == "xo":
                    space = data["state"]["board"].index("-") + 1
                    assert post_move(chips_server, data["channel"], space).status in (202, 409)
        output, _ = bot.communicate(timeout=TOURNAMENT_SECONDS)
        assert bot.returncode == 0, output
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    final = listed(chips_server, "web cup")
    assert final["status"] == "closed" and final["pool"] == 0
    assert final["pairings"][0][0]["result"] in ("white", "black", "draw")
    assert [p["amount"] for p in final["payout"]] == [10]
    assert final["payout"][0]["key"] == final["standings"][0]["player"]["key"]
    assert {p["name"] for p in final["players"]} == {"alice", "bob"}


def post_move(server: LocalServer, channel: str, space: int) -> Answer:
    body = json.dumps({"player": "alice", "channel": channel, "space": space}).encode()
    return server.request("POST", "/api/chips/move", headers=server.page_headers(), body=body)
