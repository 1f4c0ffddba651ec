"""``xo history NAME``: a name's committed moves from the REST API's blocks; a name reused shows each game apart."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from client_core.blocks import ChainBlock, ChainTransaction
from tests.xo_cli.devnet_play import Table
from xo_client.aries import check_thread
from xo_client.history import committed_moves
from xo_devnet.spawn import DevnetProcess
from xo_tp.family import NAMESPACE, game_address
from xo_tp.payload import encode_payload


@pytest.fixture(scope="module")
def devnet(tmp_path_factory):
    with DevnetProcess(log_path=tmp_path_factory.mktemp("devnet") / "devnet.log") as running:
        table = Table(running.rest_url, running.key_dir)
        table.move("alice", "reused", "create")
        table.takes("reused", 5, 1, 3, 7, 4, 9, 6)  # X wins
        table.move("bob", "reused", "delete")
        table.move("bob", "reused", "create")
        table.takes("reused", 9, 5, first="bob")
        table.move("alice", "reused", "delete")  # deleted before it ended
        table.move("alice", "reused", "create")
        table.move("bob", "other", "create")
        running.table = table
        yield running


@pytest.fixture
def history(devnet, run):
    def history_of(*argv):
        return run("history", *argv, "--url", devnet.rest_url, "--key-dir", devnet.key_dir)

    return history_of


def short(devnet, who):
    return f"{who} ({devnet.table.key(who)[:6]}...)"


def test_history_lists_each_game_of_a_reused_name_with_its_moves_boards_and_states(devnet, history):
    code, out, err = history("reused")
    assert (code, err) == (0, "")
    first, second, third = out.rstrip("\n").split("\n\n")
    alice, bob = short(devnet, "alice"), short(devnet, "bob")
    lines = first.splitlines()
    assert lines[0].startswith("game 'reused' (1 of 3, blocks 1-9): ")
    assert lines[0].endswith(f": X won (player 1: {alice}), then deleted")
    assert lines[1].split() == ["BLOCK", "PLAYER", "ACTION", "SPACE", "BOARD", "STATE"]
    assert lines[2].split() == ["1", *alice.split(), "create", "empty", "board", "X", "to", "move", "(open", "seat)"]
    assert lines[3].split() == ["2", *alice.split(), "take", "5", "(B2)", "X", "on", "B2", "O", "to", "move", "(open",
                                "seat)"]
    assert lines[9].split()[:5] == ["8", *alice.split(), "take", "6"]
    board_and_state = ["X", "on", "C1", "A2", "B2", "C2,", "O", "on", "A1", "A3", "C3", "alice", "(X)", "won"]
    assert lines[9].split()[6:] == board_and_state
    assert "NEXT" not in first and "WIN" not in first and "---" not in first
    assert lines[10].split() == ["9", *bob.split(), "delete", "(deleted)"]
    assert len({line.index("ACTION") for line in lines[1:2]} | {line.index("create") for line in lines[2:3]}) == 1
    assert second.splitlines()[0] == "game 'reused' (2 of 3, blocks 10-13): deleted before it ended: bob (X) to move"
    assert third.splitlines()[0] == "game 'reused' (3 of 3, block 14): still being played: X to move (open seat)"


def test_history_json_has_each_game_and_the_game_after_every_move(devnet, history):
    code, out, _ = history("reused", "--json")
    assert code == 0
    document = json.loads(out)
    assert (document["name"], document["address"]) == ("reused", game_address("reused"))
    first, second, third = document["games"]
    assert [(game["number"], game["deleted"]) for game in (first, second, third)] == [(1, True), (2, True), (3, False)]
    take = first["moves"][1]
    assert take["action"] == "take" and take["space"] == 5 and take["player"] == devnet.table.key("alice")
    assert take["game"]["board"] == "----X----" and len(take["block_id"]) == len(take["transaction_id"]) == 128
    assert first["moves"][-1]["action"] == "delete" and first["moves"][-1]["game"] is None
    assert first["game"]["state"] == "P1-WIN"
    assert [move["block_num"] for game in document["games"] for move in game["moves"]] == list(range(1, 15))


def test_history_as_an_aries_thread_is_a_valid_thread_with_the_game_s_outcome(history):
    code, out, _ = history("reused", "--format", "aries", "--game", "1")
    assert code == 0
    thread = json.loads(out)
    assert check_thread(thread) is None
    assert [message["@type"].rsplit("/", 1)[1] for message in thread] == ["move"] * 7 + ["outcome"]
    assert thread[-1]["winner"] == "X", "a game deleted after it ended keeps its winner"
    assert thread[-2]["moves"] == ["X:B2", "O:A1", "X:C1", "O:A3", "X:A2", "O:C3", "X:C2"]


def test_a_game_deleted_before_it_ended_is_an_abandoned_thread(history):
    code, out, _ = history("reused", "--format", "aries", "--game", "2")
    thread = json.loads(out)
    assert (code, check_thread(thread)) == (0, None)
    assert thread[-1]["winner"] is None and thread[-1]["moves"] == ["X:C3", "O:B2"]


def test_the_aries_thread_of_a_name_is_its_last_game_by_default(history):
    code, out, _ = history("reused", "--format", "aries")
    assert (code, json.loads(out)) == (0, [])


def test_a_name_never_created_is_exit_1(history):
    code, out, err = history("never")
    assert (code, out) == (1, "")
    assert err == "xo: error: there is no game named 'never' on this chain, and there never was\n"


def test_one_game_of_a_name_is_shown_as_one_of_all(history):
    code, out, _ = history("reused", "--game", "2")
    assert code == 0
    assert out.splitlines()[0] == "game 'reused' (2 of 3, blocks 10-13): deleted before it ended: bob (X) to move"
    assert "\n\n" not in out


def test_a_game_number_beyond_the_name_s_games_is_exit_1(history):
    code, _, err = history("other", "--game", "2")
    assert code == 1
    assert err == "xo: error: game 'other' has had 1 game(s) on this chain, not 2\n"


def test_only_xo_transactions_naming_the_game_are_its_moves():
    address = game_address("mine")

    def transaction(number, payload, family="xo", outputs=(address,)):
        return ChainTransaction(f"{number:0128x}", family, "1.0", "02" + "a" * 64, outputs, outputs, payload)

    blocks = [
        ChainBlock("b" * 128, 2, "a" * 128, (
            transaction(4, encode_payload("mine", "take", 5)),
            transaction(5, encode_payload("collides", "create"), outputs=(address,)),  # another name, same address
            transaction(6, encode_payload("mine", "take", 1), family="intkey"),
            transaction(7, b"\xff not a payload"),
        )),
        ChainBlock("a" * 128, 1, "0" * 16, (transaction(1, encode_payload("mine", "create"), outputs=(NAMESPACE,)),)),
    ]  # fmt: skip

    class Blocks:
        def blocks(self):
            return iter(blocks)

    moves = committed_moves(Blocks(), "mine")  # type: ignore[arg-type]
    assert [(move.block_num, move.action, move.space) for move in moves] == [(1, "create", None), (2, "take", 5)]


def test_a_hostile_name_is_escaped_for_people_and_exact_in_json(devnet, history):
    hostile = "\x1b[31mred\nrow\u202e"
    devnet.table.move("alice", hostile, "create")
    code, out, _ = history(hostile)
    assert code == 0
    assert not set(out) & {"\x1b", "\u202e"} and out.count("\n") == 3
    assert out.startswith("game '\\x1b[31mred\\x0arow\\u202e' (1 of 1, block ")
    code, out, _ = history(hostile, "--json")
    assert json.loads(out)["name"] == hostile


def test_reading_history_loads_no_websocket_stack():
    probe = "import sys, xo_cli.history, xo_cli.main; print(sorted(m for m in sys.modules if m.startswith('aiohttp')))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout == "[]\n", done.stderr


def test_an_unreachable_rest_api_is_exit_3_with_the_usual_line(run, closed_port):
    url = f"http://127.0.0.1:{closed_port}"
    refused = f"xo: error: cannot reach the REST API at {url}: Connection refused\n"
    assert run("history", "g1", "--url", url) == (3, "", refused)
