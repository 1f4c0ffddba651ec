"""xo aries replay: a thread played between agents becomes a game on the ledger, in one all-or-nothing batch."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from xo_client.aries import Placement, to_thread
from xo_devnet.spawn import DevnetProcess
from xo_tp.family import game_address

XO = Path(sys.executable).parent / "xo"
# X: B2, O: A1, X: A2, O: B1, X: C2 -- X completes the middle row.
X_WINS = [Placement("X", 5), Placement("O", 1), Placement("X", 4), Placement("O", 2), Placement("X", 6)]
DRAW = [Placement(mark, space) for mark, space in zip("XOXOXOXOX", [1, 2, 3, 5, 4, 7, 6, 9, 8], strict=True)]


@pytest.fixture
def alice(make_player):
    return make_player("alice")


@pytest.fixture
def bob(make_player):
    return make_player("bob")


@pytest.fixture
def thread_file(tmp_path):
    def write(moves, **options):
        path = tmp_path / "thread.json"
        path.write_text(json.dumps(to_thread(moves, **options)), encoding="utf-8")
        return path

    return write


def replay(run, path, name, x_player, o_player, url, *flags):
    return run("aries", "replay", path, name, *x_player.flags(url), "--opponent", o_player.name, *flags)


def test_a_won_thread_becomes_a_won_game_signed_move_by_move_in_one_batch(fake, alice, bob, run, thread_file):
    code, out, err = replay(run, thread_file(X_WINS), "g7", alice, bob, fake.url, "--wait", "10")
    assert (code, err) == (0, "")
    assert [method for method, _ in fake.requests].count("POST") == 1
    assert [(move.payload, move.signer) for move in fake.submitted] == [
        ("g7,create,", alice.public_key),
        ("g7,take,5", alice.public_key),
        ("g7,take,1", bob.public_key),
        ("g7,take,4", alice.public_key),
        ("g7,take,2", bob.public_key),
        ("g7,take,6", alice.public_key),
    ]
    [batch_id] = {move.batch_id for move in fake.submitted}
    assert fake.state[game_address("g7")].decode() == f"g7,OO-XXX---,P1-WIN,{alice.public_key},{bob.public_key}"
    a, b = f"alice ({alice.public_key[:6]}...)", f"bob ({bob.public_key[:6]}...)"
    assert out.splitlines() == [
        f"create game 'g7', signed by {a}",
        f"move 1: X takes 5 (B2), signed by {a}",
        f"move 2: O takes 1 (A1), signed by {b}",
        f"move 3: X takes 4 (A2), signed by {a}",
        f"move 4: O takes 2 (B1), signed by {b}",
        f"move 5: X takes 6 (C2), signed by {a}",
        f"Committed the replay of game 'g7' (create and 5 moves in one batch), X won (player 1: {a}): batch {batch_id}",
    ]


def test_an_abandoned_thread_replays_its_moves_and_leaves_the_game_unfinished(fake, alice, bob, run, thread_file):
    code, out, _ = replay(run, thread_file(X_WINS[:3], abandoned=True), "g8", alice, bob, fake.url, "--wait", "10")
    assert code == 0
    assert fake.state[game_address("g8")].decode() == f"g8,O--XX----,P2-NEXT,{alice.public_key},{bob.public_key}"
    assert "(create and 3 moves in one batch), left unfinished as the thread abandoned it (O to play: " in out
    assert "delete" not in [move.payload.split(",")[1] for move in fake.submitted]


def test_a_thread_with_no_move_creates_the_game_only(fake, alice, bob, run, thread_file):
    code, out, _ = replay(run, thread_file([]), "g0", alice, bob, fake.url, "--wait", "10")
    assert code == 0
    assert [move.payload for move in fake.submitted] == ["g0,create,"]
    assert "(create only: the thread has no move), unfinished (X to play: player 1's seat is open" in out


def test_without_wait_the_batch_is_submitted_and_its_id_printed(fake, alice, bob, run, thread_file):
    code, out, _ = replay(run, thread_file(X_WINS), "g7", alice, bob, fake.url)
    assert code == 0
    [batch_id] = {move.batch_id for move in fake.submitted}
    last = out.splitlines()[-1]
    assert last == f"Submitted the replay of game 'g7' (create and 5 moves in one batch): batch {batch_id}"
    assert fake.gets("/batch_statuses") == []


def test_json_names_every_transaction_and_once_committed_the_game(fake, alice, bob, run, thread_file):
    code, out, _ = replay(run, thread_file(DRAW), "tie", alice, bob, fake.url, "--json", "--wait", "10")
    assert code == 0
    document = json.loads(out)
    assert (document["name"], document["status"], document["abandoned"]) == ("tie", "COMMITTED", False)
    assert document["batch_id"] == fake.submitted[0].batch_id
    assert [(step["action"], step["mark"], step["space"]) for step in document["transactions"]] == [
        ("create", None, None),
        *((("take", move.mark, move.space)) for move in DRAW),
    ]
    signers = {"X": alice.public_key, "O": bob.public_key, None: alice.public_key}
    assert all(step["signer"] == signers[step["mark"]] for step in document["transactions"])
    assert len({step["transaction_id"] for step in document["transactions"]}) == 10
    assert (document["game"]["board"], document["game"]["state"]) == ("XOXXOXOXO", "TIE")
    submitted = json.loads(replay(run, thread_file(DRAW), "tie2", alice, bob, fake.url, "--json")[1])
    assert submitted["status"] == "SUBMITTED"
    assert "game" not in submitted


def test_the_thread_can_come_from_standard_input(fake, alice, bob, run, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(to_thread(X_WINS)).encode())))
    code, _, _ = replay(run, "-", "g7", alice, bob, fake.url, "--wait", "10")
    assert code == 0
    assert fake.state[game_address("g7")].decode().split(",")[2] == "P1-WIN"


def test_an_invalid_thread_is_refused_before_any_request(fake, alice, bob, run, tmp_path):
    thread = to_thread(X_WINS)
    thread[3]["moves"][3] = "O:B2"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(thread), encoding="utf-8")
    code, out, err = replay(run, path, "g7", alice, bob, fake.url, "--wait", "10")
    assert (code, out) == (1, "")
    assert err == (
        f"xo: error: the thread in '{path}' is not a valid XO game: message [3]: already-occupied: "
        "O:B2: cell B2 is already occupied; nothing was submitted\n"
    )
    assert fake.requests == []


def test_an_existing_game_is_refused_as_xo_create_refuses_it(fake, alice, bob, run, thread_file):
    fake.put_game("g7", board="X--------", state="P2-NEXT", p1=bob.public_key)
    code, out, err = replay(run, thread_file(X_WINS), "g7", alice, bob, fake.url, "--wait", "10")
    assert (code, out) == (1, "")
    assert err == "xo: error: game 'g7' already exists: O to move (open seat); nothing was submitted\n"
    assert fake.submitted == []


def test_a_rejected_replay_commits_nothing_of_the_game(fake, alice, bob, run, thread_file):
    fake.put_game("g7", board="X--------", state="P2-NEXT", p1=bob.public_key)
    before = dict(fake.state)
    code, _, err = replay(run, thread_file(X_WINS), "g7", alice, bob, fake.url, "--no-validate", "--wait", "10")
    assert code == 1
    assert err == (
        "xo: error: the validator rejected the replay of game 'g7' (create and 5 moves in one batch): "
        "Invalid action: Game already exists.; the batch is all or nothing, so none of it was committed\n"
    )
    assert fake.state == before


def test_one_key_for_both_seats_needs_both_seats(fake, alice, run, thread_file):
    path = thread_file(X_WINS)
    code, _, err = replay(run, path, "g7", alice, alice, fake.url, "--wait", "10")
    assert code == 1
    assert err == (
        "xo: error: --username ('alice') and --opponent ('alice') are the same key, which would hold both seats; "
        "to replay both sides with one key on purpose, add --both-seats; nothing was submitted\n"
    )
    assert fake.requests == []
    assert replay(run, path, "g7", alice, alice, fake.url, "--wait", "10", "--both-seats")[0] == 0
    assert fake.state[game_address("g7")].decode().endswith(f",P1-WIN,{alice.public_key},{alice.public_key}")


def test_a_missing_opponent_key_is_named_before_any_request(fake, alice, run, thread_file):
    code, _, err = run("aries", "replay", thread_file(X_WINS), "g7", *alice.flags(fake.url), "--opponent", "bbo")
    assert code == 1
    assert "no private key named 'bbo'" in err
    assert "the keys there are: alice" in err
    assert fake.requests == []


def test_a_replay_still_pending_when_the_wait_runs_out_exits_4_naming_the_batch(fake, alice, bob, run, thread_file):
    fake.settle = "pending"
    code, _, err = replay(run, thread_file(X_WINS), "g7", alice, bob, fake.url, "--wait", "1")
    assert code == 4
    batch_id = fake.submitted[0].batch_id
    assert err == (
        "xo: error: the replay of game 'g7' (create and 5 moves in one batch) is still PENDING after 1 s "
        f"(batch {batch_id})\n"
    )


@pytest.fixture(scope="module")
def devnet():
    """A real xo-devnet (ephemeral, free ports, its own keys: alice and bob) for the whole module."""
    with DevnetProcess(["--ephemeral"]) as running:
        yield running


def xo(*argv):
    return subprocess.run([str(XO), *map(str, argv)], capture_output=True, text=True, timeout=120, check=False)


def test_a_replay_on_a_real_ledger_shows_the_threads_board(devnet, tmp_path):
    path = tmp_path / "draw.json"
    path.write_text(json.dumps(to_thread(DRAW)), encoding="utf-8")
    flags = ["--url", devnet.rest_url, "--key-dir", devnet.key_dir]
    players = ["--username", "alice", "--opponent", "bob"]
    replayed = xo("aries", "replay", path, "agents-draw", *players, "--wait", "60", *flags)
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.splitlines()[-1].startswith(
        "Committed the replay of game 'agents-draw' (create and 9 moves in one batch), a tie (the board is full"
    )
    shown = xo("show", "agents-draw", "--json", *flags)
    game = json.loads(shown.stdout)
    assert (game["board"], game["state"]) == ("XOXXOXOXO", "TIE")
    keys = {name: (devnet.key_dir / f"{name}.pub").read_text().strip() for name in ("alice", "bob")}
    assert (game["player1"], game["player2"]) == (keys["alice"], keys["bob"])
    analyzed = xo("show", "agents-draw", "--analyze", *flags)
    assert analyzed.stdout.splitlines()[-3:] == [
        "The game is over: a draw (the board is full, nobody won).",
        "Legal moves: none",
        "Lines: none",
    ]


def test_a_real_ledger_refuses_the_whole_replay_when_one_move_fails(devnet, tmp_path):
    flags = ["--url", devnet.rest_url, "--key-dir", devnet.key_dir]
    assert xo("create", "taken", "--username", "bob", "--wait", "60", *flags).returncode == 0
    path = tmp_path / "won.json"
    path.write_text(json.dumps(to_thread(X_WINS)), encoding="utf-8")
    argv = ["aries", "replay", path, "taken", "--username", "alice", "--opponent", "bob", "--no-validate"]
    refused = xo(*argv, "--wait", "60", *flags)
    assert refused.returncode == 1
    assert "none of it was committed" in refused.stderr
    shown = json.loads(xo("show", "taken", "--json", *flags).stdout)
    assert (shown["board"], shown["state"], shown["player1"]) == ("---------", "P1-NEXT", "")


def test_a_name_no_payload_can_carry_is_refused_before_reading_the_thread(fake, alice, bob, run, tmp_path):
    code, _, err = replay(run, tmp_path / "not-read.json", "a,b", alice, bob, fake.url)
    assert code == 1
    assert "cannot contain ','" in err
    assert fake.requests == []


def test_without_opponent_o_s_moves_are_signed_by_the_computer_player_s_key(fake, alice, run, thread_file):
    """``xo aries replay FILE NAME`` as the README prints it works: xo-ai, made on first use, stands in for O."""
    code, out, err = run("aries", "replay", thread_file(X_WINS), "g7", *alice.flags(fake.url), "--wait", "10")
    assert (code, err) == (0, "")
    ai = (alice.key_dir / "xo-ai.pub").read_text().strip()
    assert f"move 2: O takes 1 (A1), signed by xo-ai ({ai[:6]}...)" in out
    assert fake.state[game_address("g7")].decode().endswith(f",P1-WIN,{alice.public_key},{ai}")
