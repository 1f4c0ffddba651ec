"""`xo watch` and `xo history` on the network: the /subscriptions websocket, /blocks and /receipts of any REST API.

The watch runs as a separate process beside the players' commands; on a real network
other games may commit meanwhile, so only this test's own game is watched.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading

from tests.integration.players import COMMAND_SLACK_SECONDS, WAIT_SECONDS, Player, Xo, console_script


def test_watch_follows_a_game_to_its_end_and_history_lists_its_moves(
    xo: Xo, alice: Player, bob: Player, game: str
) -> None:
    environment = {name: value for name, value in os.environ.items() if not name.startswith("XO_")}
    watch = subprocess.Popen(
        [console_script("xo"), "watch", game, "--json", "--url", xo.url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    deadline = threading.Timer(WAIT_SECONDS * 8 + COMMAND_SLACK_SECONDS, watch.kill)
    deadline.start()
    try:
        assert watch.stdout is not None
        snapshot = json.loads(watch.stdout.readline())
        assert (snapshot["action"], snapshot["name"], snapshot["game"]) == ("snapshot", game, None)
        alice.create(game)
        for player, space in [(alice, 1), (bob, 4), (alice, 2), (bob, 5), (alice, 3)]:
            player.take(game, space)
        out, err = watch.communicate()
    finally:
        deadline.cancel()
        watch.kill()
    assert watch.returncode == 0, f"xo watch ended with {watch.returncode}: {err}"
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(line["action"], line["space"], line["player"]) for line in lines] == [
        ("create", None, None),
        ("take", 1, alice.public_key),
        ("take", 4, bob.public_key),
        ("take", 2, alice.public_key),
        ("take", 5, bob.public_key),
        ("take", 3, alice.public_key),
    ]
    assert (lines[-1]["game"]["board"], lines[-1]["game"]["state"]) == ("XXXOO----", "P1-WIN")
    numbers = [line["block_num"] for line in lines]
    assert numbers == sorted(numbers) and numbers[0] > snapshot["block_num"]

    history = xo.run("history", game, "--json").json()
    assert isinstance(history, dict)
    [played] = history["games"]
    moves = played["moves"]
    assert [(move["action"], move["space"], move["player"]) for move in moves] == [
        ("create", None, alice.public_key),
        ("take", 1, alice.public_key),
        ("take", 4, bob.public_key),
        ("take", 2, alice.public_key),
        ("take", 5, bob.public_key),
        ("take", 3, alice.public_key),
    ]
    assert [move["block_num"] for move in moves] == numbers, "history and watch see the same blocks"
    assert played["game"]["state"] == "P1-WIN" and not played["deleted"]
