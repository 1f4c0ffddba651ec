"""``xo watch``: a game (or every game) as its moves commit, end to end against xo-devnet, as separate processes.

Two keys play while ``xo watch`` runs beside them; its lines are read as they come.
Also: the connection dropped (the devnet restarted on its port and data dir), the
websocket refused (the devnet's subscriber limit), Ctrl-C and SIGTERM.
"""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

import pytest

from client_core.blocks import BlockRef
from client_core.keys import KeyNames
from tests.client_core.scripted_ledger import ScriptedLedger, in_a_thread
from tests.hostile_server import TLS_CERTIFICATE
from tests.xo_cli.devnet_play import Running, Table
from xo_cli import feed
from xo_cli.watch import Board
from xo_client.changes import TAKEN, Change
from xo_client.games import Game
from xo_devnet.spawn import DevnetProcess
from xo_tp.family import game_address


@pytest.fixture(scope="module")
def devnet(tmp_path_factory):
    with DevnetProcess(log_path=tmp_path_factory.mktemp("devnet") / "devnet.log") as running:
        yield running


@pytest.fixture(scope="module")
def table(devnet) -> Table:
    return Table(devnet.rest_url, devnet.key_dir)


@pytest.fixture
def watching(devnet):
    started: list[Running] = []

    def start(*argv: str, url: str | None = None, key_dir: Path | None = None) -> Running:
        where = ["--url", url or devnet.rest_url, "--key-dir", str(key_dir or devnet.key_dir)]
        started.append(Running("watch", *argv, *where))
        return started[-1]

    yield start
    for running in started:
        running.stop()


def short(key: str) -> str:
    return key[:6] + "..."


def test_watch_of_a_mistyped_name_names_the_likely_game_on_its_first_line_then_waits_for_the_name_typed(
    table, watching
):
    table.move("alice", "game1", "create")
    watch = watching("g1")
    [waiting] = watch.lines(1)
    assert re.fullmatch(
        r"block \d+: there is no game 'g1' yet; did you mean 'game1'\? \(games now: .*'game1'.*\); "
        r"waiting for it to be created \(Ctrl-C stops\)",
        waiting,
    ), waiting
    table.move("bob", "g1", "create")  # the game typed, created after all: the watch follows it
    [created] = watch.lines(1)
    assert created.endswith("game 'g1' created; X to move (open seat); empty board")


def test_watch_shows_a_whole_game_move_by_move_and_exits_0_when_it_is_won(table, watching):
    watch = watching("duel")
    [waiting] = watch.lines(1)
    assert ": there is no game 'duel' yet" in waiting  # then the games of other tests, if any
    assert waiting.endswith("; waiting for it to be created (Ctrl-C stops)")
    table.move("alice", "duel", "create")
    table.takes("duel", 5, 1, 3, 7, 4, 9, 6)  # X wins on the middle row
    alice, bob = "alice", "bob"
    lines = [line.split(": ", 1)[1] for line in watch.lines(8)]
    must_not = [short(table.key("alice")), short(table.key("bob")), "alice (0", "bob (0"]
    assert [word for word in must_not if word in "\n".join(lines)] == [], "named keys read as their names alone"
    assert lines == [
        "game 'duel' created; X to move (open seat); empty board",
        f"game 'duel': {alice} took 5 (B2) as X; O to move (open seat); X on B2",
        f"game 'duel': {bob} took 1 (A1) as O; alice (X) to move; X on B2, O on A1",
        f"game 'duel': {alice} took 3 (C1) as X; bob (O) to move; X on C1 B2, O on A1",
        f"game 'duel': {bob} took 7 (A3) as O; alice (X) to move; X on C1 B2, O on A1 A3",
        f"game 'duel': {alice} took 4 (A2) as X; bob (O) to move; X on C1 A2 B2, O on A1 A3",
        f"game 'duel': {bob} took 9 (C3) as O; alice (X) to move; X on C1 A2 B2, O on A1 A3 C3",
        f"game 'duel': {alice} took 6 (C2) as X; X won (player 1: {alice}); X on C1 A2 B2 C2, O on A1 A3 C3",
    ]
    assert watch.wait() == 0
    assert watch.rest() == []
    assert watch.rest("stderr") == []


def test_watch_of_a_game_in_play_draws_its_board_first(table, watching):
    table.move("bob", "drawn", "create")
    table.takes("drawn", 5, first="bob")
    watch = watching("drawn", "--username", "bob")
    card = watch.lines(12)
    assert card[0] == "GAME     : drawn"
    assert card[2] == "PLAYER 1 : bob plays X (you)"
    assert card[9] == "  2   4 | X | 6"
    table.move("bob", "drawn", "delete")
    [deleted] = watch.lines(1)
    assert deleted.endswith(": game 'drawn' deleted")
    assert watch.wait() == 0


def test_watch_json_prints_the_game_after_each_change_one_object_per_line(table, watching):
    table.move("alice", "lines", "create")
    watch = watching("lines", "--json")
    [snapshot] = map(json.loads, watch.lines(1))
    assert (snapshot["action"], snapshot["game"]["board"], snapshot["space"]) == ("snapshot", "---------", None)
    table.takes("lines", 1, 4, 2, 5, 3)
    documents = [json.loads(line) for line in watch.lines(5)]
    assert [(doc["action"], doc["space"]) for doc in documents] == [(TAKEN, space) for space in (1, 4, 2, 5, 3)]
    assert [doc["player"] for doc in documents] == [table.key("alice"), table.key("bob")] * 2 + [table.key("alice")]
    assert documents[-1]["game"] == {
        "name": "lines", "board": "XXXOO----", "state": "P1-WIN", "player1": table.key("alice"),
        "player2": table.key("bob"), "address": game_address("lines"),
    }  # fmt: skip
    numbers = [snapshot["block_num"]] + [doc["block_num"] for doc in documents]
    assert numbers == sorted(set(numbers)), "one block per move here, in order"
    assert all(len(doc["block_id"]) == 128 for doc in documents)
    assert watch.wait() == 0


def test_the_lobby_shows_every_game_s_changes_until_ctrl_c(table, watching):
    table.move("alice", "lobby-old", "create")
    watch = watching("--json")
    before = [json.loads(line) for line in watch.lines(1)]  # the games as they stand: at least this one
    while before[-1]["name"] != "lobby-old":
        before += [json.loads(line) for line in watch.lines(1)]
    assert before[-1]["action"] == "snapshot"
    table.move("bob", "lobby-new", "create")
    table.takes("lobby-old", 5)
    table.move("alice", "lobby-new", "delete")
    seen = [json.loads(line) for line in watch.lines(3)]
    assert [(doc["name"], doc["action"], doc["space"]) for doc in seen] == [
        ("lobby-new", "create", None),
        ("lobby-old", "take", 5),
        ("lobby-new", "delete", None),
    ]
    assert seen[2]["game"] is None
    assert watch.interrupt(signal.SIGINT) == 130
    assert watch.rest("stderr") == [], "Ctrl-C is how a watch ends: no error line"


def test_sigterm_ends_a_watch_with_143(watching):
    watch = watching()
    watch.lines(1)
    assert watch.interrupt(signal.SIGTERM) == 143
    assert watch.rest("stderr") == []


def test_a_game_that_is_over_is_drawn_and_the_watch_ends_at_once(table, watching):
    table.move("alice", "over", "create")
    table.takes("over", 1, 4, 2, 5, 3)
    watch = watching("over", "--json")
    assert json.loads(watch.lines(1)[0])["game"]["state"] == "P1-WIN"
    assert watch.wait() == 0


def test_a_name_no_game_can_have_is_refused(watching):
    watch = watching("a|b")
    assert watch.wait() == 1
    assert watch.rest("stderr") == ["xo: error: game 'a|b': a game name must not contain '|'"]


def test_a_dropped_connection_resumes_after_the_last_block_with_no_move_lost_or_doubled(
    tmp_path, watching, closed_port
):
    data_dir, key_dir = tmp_path / "chain", tmp_path / "keys"
    on_port = ("--rest-api", f"127.0.0.1:{closed_port}")  # held for the test: the second devnet gets it back
    first = DevnetProcess(("--data-dir", str(data_dir), *on_port), key_dir=key_dir, log_path=tmp_path / "first.log")
    first.start()
    url = first.rest_url
    try:
        table = Table(url, key_dir)
        table.move("alice", "again", "create")
        watch = watching("again", "--json", url=url, key_dir=key_dir)
        watch.lines(1)
        table.takes("again", 5, 1)
        assert [json.loads(line)["space"] for line in watch.lines(2)] == [5, 1]
    finally:
        first.close()  # the websocket is closed (1001) and the REST API goes away
    restart = ("--data-dir", str(data_dir), *on_port)
    with DevnetProcess(restart, key_dir=key_dir, log_path=tmp_path / "second.log") as second:
        table = Table(second.rest_url, key_dir)
        table.takes("again", 3, 7, first="alice")
        assert watch.lines(1, "stderr") == [
            f"xo: the REST API at {url} closed the websocket (code 1001: Server shutdown); reconnecting"
        ]
        table.takes("again", 4, 9, 6, first="alice")
        after = [json.loads(line) for line in watch.lines(5)]
        assert [doc["space"] for doc in after] == [3, 7, 4, 9, 6]
        assert after[-1]["game"]["state"] == "P1-WIN"
        assert watch.wait() == 0
        assert watch.rest() == []
        [back] = watch.rest("stderr")
        assert back.startswith(f"xo: reconnected to the REST API at {url}; resuming after block ")


def test_a_refused_websocket_is_said_on_one_line_and_the_watch_polls(tmp_path, watching):
    with DevnetProcess(("--ephemeral", "--max-subscribers", "1"), log_path=tmp_path / "devnet.log") as devnet:
        table = Table(devnet.rest_url, devnet.key_dir)
        lobby = watching(url=devnet.rest_url, key_dir=devnet.key_dir)  # takes the one subscriber place
        lobby.lines(1)
        table.move("alice", "polled", "create")
        lobby.lines(1)  # the lobby is subscribed: its creation line has come
        watch = watching("polled", "--json", url=devnet.rest_url, key_dir=devnet.key_dir)
        watch.lines(1)
        table.takes("polled", 1, 4, 2, 5, 3)
        [refused] = watch.lines(1, "stderr")
        assert refused == (
            f"xo: the REST API at {devnet.rest_url} does not serve the /subscriptions websocket (HTTP 429 Too Many "
            "Requests): polling for new blocks every 1 s instead"
        )
        assert [json.loads(line)["space"] for line in watch.lines(5)] == [1, 4, 2, 5, 3]
        assert watch.wait() == 0
        assert watch.rest("stderr") == []


def test_on_a_terminal_the_board_is_redrawn_with_the_last_moves_under_it():
    screens: list[str] = []
    board = Board(KeyNames({}), None, write=screens.append)
    start = BlockRef("ab" * 64, 7)
    fresh = Game("g1", "---------", "P1-NEXT", "", "", game_address("g1"))
    board.snapshot(start, [feed.snapshot("g1", fresh)], "g1", "")
    moved = fresh._replace(board="----X----", state="P2-NEXT", player1="02" + "a" * 64)
    board.changes(BlockRef("cd" * 64, 8), [Change(TAKEN, "g1", 5, moved.player1, moved)])
    first, second = screens
    assert first.startswith("\x1b[H\x1b[2JGAME     : g1\n") and first.endswith("\nwatching; Ctrl-C stops\n")
    assert "  2   4 | X | 6" in second
    assert "block 8: game 'g1': 02aaaa... took 5 (B2) as X; O to move (open seat); X on B2\n" in second


def test_a_ledger_started_afresh_is_said_and_the_watch_starts_again_from_its_newest_block(
    tmp_path, watching, closed_port
):
    key_dir = tmp_path / "keys"
    on_port = ("--rest-api", f"127.0.0.1:{closed_port}")  # held for the test: the second devnet gets it back
    first = DevnetProcess(("--ephemeral", *on_port), key_dir=key_dir, log_path=tmp_path / "first.log").start()
    url = first.rest_url
    try:
        Table(url, key_dir).move("alice", "old-chain", "create")
        watch = watching("--json", url=url, key_dir=key_dir)
        assert json.loads(watch.lines(1)[0])["name"] == "old-chain"
    finally:
        first.close()
    fresh = ("--ephemeral", *on_port)
    with DevnetProcess(fresh, key_dir=key_dir, log_path=tmp_path / "second.log") as second:
        lost, back, changed = watch.lines(3, "stderr")
        assert "reconnecting" in lost and back.startswith("xo: reconnected")
        assert changed.startswith("xo: warning: block 1 (")
        assert changed.endswith(
            f"the last one followed, is not on the chain of the REST API at {url} any more: a fork was resolved the "
            "other way, or the ledger was started afresh; starting again from its newest block"
        )
        Table(second.rest_url, key_dir).move("bob", "new-chain", "create")
        [seen] = map(json.loads, watch.lines(1))  # a change, or already there when the watch read the new chain
        assert (seen["name"], seen["action"] in ("create", "snapshot"), seen["block_num"]) == ("new-chain", True, 1)
        assert seen["game"]["board"] == "---------"


def test_an_unreachable_rest_api_is_exit_3_before_watching_starts(run, closed_port):
    url = f"http://127.0.0.1:{closed_port}"
    refused = f"xo: error: cannot reach the REST API at {url}: Connection refused\n"
    assert run("watch", "--url", url) == (3, "", refused)


def test_v_traces_the_follower_s_requests_too(devnet, table, watching):
    table.move("alice", "traced", "create")
    table.takes("traced", 1, 4, 2, 5)
    watch = watching("traced", "--json", "-v")
    watch.lines(1)
    table.takes("traced", 3)
    watch.lines(1)
    assert watch.wait() == 0
    traced = watch.rest("stderr")
    assert traced[0].startswith("xo: GET /blocks?limit=1 -> 200 (")
    assert any(line.startswith("xo: GET /subscriptions -> 101 websocket (") for line in traced)


@pytest.fixture
def sawtooth_over_tls():
    """The scripted imitation of Sawtooth's REST API (ignores last_known_block_ids), over HTTPS, in a thread."""
    with in_a_thread(ScriptedLedger("sawtooth", prefix="/sawtooth", tls=True)) as server:
        yield server


def test_watch_over_https_with_a_path_prefix_against_sawtooth_s_websocket(sawtooth_over_tls, monkeypatch, tmp_path):
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS_CERTIFICATE))
    server, address = sawtooth_over_tls, game_address("tls")
    watch = Running("watch", "tls", "--json", "--url", server.url, "--key-dir", str(tmp_path))
    try:
        assert json.loads(watch.lines(1)[0])["game"] is None
        server.commit_now({address: b"tls,---------,P1-NEXT,,"})
        server.commit_now({address: b"tls,----X----,P2-NEXT,02" + b"a" * 64 + b","})
        server.commit_now({address: None})
        assert [json.loads(line)["action"] for line in watch.lines(3)] == ["create", "take", "delete"]
        assert watch.wait() == 0
    finally:
        watch.stop()
    assert server.gets("/subscriptions") and server.url.startswith("https://127.0.0.1:")
