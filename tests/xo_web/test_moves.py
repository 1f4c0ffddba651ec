"""Moves through the local server against xo-devnet: checked, signed with the named key file, committed, told in words.

The page names a key and a move; the server does what ``xo take --wait`` does and
answers with one sentence, whichever way the move ends. Every block reaches an open
event stream as one ``block`` event, after the stream's opening snapshot.
"""

from __future__ import annotations

import concurrent.futures
import json
import os

import pytest

from tests.xo_cli.devnet_play import Table
from tests.xo_web.local_server import EventReader


@pytest.fixture(scope="module")
def table(devnet) -> Table:
    return Table(devnet.rest_url, devnet.key_dir)


def short(key: str) -> str:
    return key[:6] + "..."


def test_a_game_played_through_the_server_commits_and_each_move_says_how_it_ended(server, table):
    created = server.post_move("alice", "create", "web-duel")
    assert created.status == 200
    assert created.json()["message"] == "Committed create game 'web-duel'"
    for player, space in (("alice", 5), ("bob", 1), ("alice", "C1"), ("bob", 7), ("alice", "a2"), ("bob", 9)):
        answer = server.post_move(player, "take", "web-duel", space)
        assert (answer.status, answer.json()["status"]) == (200, "COMMITTED")
    won = server.post_move("alice", "take", "web-duel", 6).json()
    alice = f"alice ({short(table.key('alice'))})"
    assert won["message"] == f"Committed take 6 (C2) in game 'web-duel', X won (player 1: {alice})"
    assert won["game"]["board"] == "O-XXXXO-O"
    assert won["game"]["player1_name"] == "alice"
    assert len(won["batch_id"]) == 128


def test_a_move_the_rules_forbid_is_refused_in_words_and_nothing_is_sent(server, table):
    server.post_move("alice", "create", "web-turns")
    server.post_move("alice", "take", "web-turns", 5)
    server.post_move("bob", "take", "web-turns", 1)
    before = table.client.head_block().block_num
    answer = server.post_move("bob", "take", "web-turns", 2)
    assert answer.status == 409
    assert answer.json()["error"] == {
        "code": 30,
        "title": "Move Refused",
        "message": f"game 'web-turns': it is alice's turn (player 1, {short(table.key('alice'))}); "
        "nothing was submitted",
    }
    taken = server.post_move("alice", "take", "web-turns", "B2").json()["error"]["message"]
    assert taken == "game 'web-turns': space 5 is already taken; nothing was submitted"
    assert table.client.head_block().block_num == before


def test_one_key_taking_both_seats_is_refused_with_advice_for_the_page(server):
    server.post_move("alice", "create", "web-alone")
    server.post_move("alice", "take", "web-alone", 5)
    answer = server.post_move("alice", "take", "web-alone", 1)
    assert answer.status == 409
    assert answer.json()["error"]["message"] == (
        "game 'web-alone': your key already holds player 1's seat (X), and this move would give it player 2's "
        "seat (O) too, so that nobody else could ever join; play O with another key; nothing was submitted"
    )


def test_two_moves_racing_one_commits_the_other_is_refused_or_rejected_in_words(server):
    server.post_move("alice", "create", "web-race")
    server.post_move("alice", "take", "web-race", 5)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: server.post_move("bob", "take", "web-race", 1), range(2)))
    assert sorted(answer.status for answer in answers) == [200, 409]
    [lost] = [answer.json()["error"] for answer in answers if answer.status == 409]
    # Refused by the server's check if the winner had committed by then, else rejected by the validator.
    assert (lost["code"], lost["title"]) in ((30, "Move Refused"), (31, "Move Rejected"))
    assert "'s turn (" in lost["message"] and "player 1" in lost["message"]  # bob moved; it is alice's turn now


def test_creating_a_game_that_exists_and_bad_names_are_refused(server):
    server.post_move("alice", "create", "web-twice")
    again = server.post_move("bob", "create", "web-twice").json()["error"]["message"]
    assert again == "game 'web-twice' already exists: X to move (open seat); nothing was submitted"
    piped = server.post_move("alice", "create", "a|b").json()["error"]
    assert piped["code"] == 30 and "'|'" in piped["message"]
    comma = server.post_move("alice", "create", "a,b").json()["error"]["message"]
    assert comma.startswith("a game name cannot contain ','")


def test_only_keys_of_the_key_directory_may_play_and_an_open_private_key_is_refused(server, devnet):
    unknown = server.post_move("../alice", "create", "web-who")
    assert unknown.status == 400
    assert unknown.json()["error"]["message"] == f"there is no private key named '../alice' in {devnet.key_dir}"
    private = devnet.key_dir / "bob.priv"
    mode = private.stat().st_mode & 0o777
    os.chmod(private, 0o644)
    try:
        answer = server.post_move("bob", "create", "web-who")
        session = server.request("GET", "/api/session").json()
    finally:
        os.chmod(private, mode)
    assert answer.status == 409
    assert "is open to others (mode 0644)" in answer.json()["error"]["message"]
    assert "chmod 600" in answer.json()["error"]["message"]
    [bob] = [key for key in session["keys"] if key["name"] == "bob"]
    assert bob["public_key"] is None and "chmod 600" in bob["problem"]


def test_the_event_stream_opens_with_every_game_then_sends_each_block_as_it_commits(server, table):
    server.post_move("alice", "create", "web-live")
    with EventReader(server) as events:
        kind, snapshot = events.next()
        assert kind == "snapshot"
        assert snapshot["status"] == {"live": True, "message": None}
        assert "web-live" in {game["name"] for game in snapshot["games"]}
        table.move("alice", "web-live", "take", 5)  # signed and sent without the server: it learns from the chain
        while True:
            _, block = events.next("block")
            if block["changes"]:
                break
        assert block["block"]["num"] > snapshot["block"]["num"]
        [change] = block["changes"]
        assert change["action"] == "take" and change["name"] == "web-live" and change["space"] == 5
        assert change["player"] == table.key("alice") and change["player_name"] == "alice"
        assert change["game"]["board"] == "----X----"


def test_history_lists_each_move_with_the_board_it_left(server, table):
    server.post_move("alice", "create", "web-past")
    server.post_move("alice", "take", "web-past", 1)
    server.post_move("alice", "delete", "web-past")
    server.post_move("bob", "create", "web-past")
    answer = server.request("GET", "/api/history?name=web-past")
    assert answer.status == 200
    history = answer.json()
    assert [game["deleted"] for game in history["games"]] == [True, False]
    first = history["games"][0]["moves"]
    assert [(move["action"], move["space"], move["player_name"]) for move in first] == [
        ("create", None, "alice"), ("take", 1, "alice"), ("delete", None, "alice")
    ]
    assert first[1]["game"]["board"] == "X--------"
    assert first[1]["game"]["player1_name"] == "alice"
    assert server.request("GET", "/api/history?name=a,b").json()["error"]["code"] == 20


def test_the_computer_answers_a_first_move_in_its_own_name_and_leaves_when_asked(server, table, devnet):
    server.post_move("alice", "create", "web-computer")
    with EventReader(server) as events:
        events.next("snapshot")
        started = server.request(
            "POST", "/api/computer", headers=server.page_headers(),
            body=json.dumps({"name": "web-computer", "level": "perfect"}).encode(),
        )  # fmt: skip
        assert started.status == 200
        assert started.json()["reason"] == "X to play: waiting for someone to open the game"
        assert events.next("computer")[1] == {
            "name": "web-computer", "shown": "web-computer", "level": "perfect", "active": True, "message": None,
        }  # fmt: skip
        server.post_move("alice", "take", "web-computer", 5)
        blocks = (events.next("block")[1] for _ in range(20))
        answer = next(change for block in blocks for change in block["changes"] if change["player_name"] == "xo-ai")
        assert answer["action"] == "take" and answer["game"]["player2"] == started.json()["key"]
        assert (devnet.key_dir / "xo-ai.priv").stat().st_mode & 0o777 == 0o600
        stopped = server.request(
            "POST", "/api/computer/stop", headers=server.page_headers(), body=b'{"name": "web-computer"}'
        )
        assert stopped.status == 200
        _, left = events.next("computer")
        assert (left["active"], left["message"]) == (False, "The computer stopped playing here, as asked.")


def test_the_computer_refuses_a_game_two_others_play_and_a_level_it_has_not(server):
    server.post_move("alice", "create", "web-full")
    server.post_move("alice", "take", "web-full", 5)
    server.post_move("bob", "take", "web-full", 1)
    headers = server.page_headers()
    full = server.request("POST", "/api/computer", headers=headers, body=b'{"name": "web-full", "level": "perfect"}')
    assert full.status == 409
    assert full.json()["error"]["message"].startswith(
        "the computer cannot play in game 'web-full': both seats of game 'web-full' are taken, by alice ("
    )
    odd = server.request("POST", "/api/computer", headers=headers, body=b'{"name": "web-full", "level": "godlike"}')
    assert odd.status == 400
    assert odd.json()["error"]["message"] == (
        'the computer needs {"name": GAME, "level": "perfect" or "heuristic" or "random"}'
    )
