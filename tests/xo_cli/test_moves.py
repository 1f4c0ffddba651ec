"""xo create / take / delete against a REST API that answers like Sawtooth's: what is sent, what is reported."""

import json
import os
import signal
import threading
import time

import pytest

from client_core import submission, waiting
from xo_cli import moves
from xo_tp.family import game_address


def settle_when_asked(fake, status, reasons, asked):
    """Give every submitted batch ``status`` once the fake has had ``asked`` status requests (10 s at most)."""

    def settle():
        deadline = time.monotonic() + 10
        while len(fake.gets("/batch_statuses")) < asked and time.monotonic() < deadline:
            time.sleep(0.01)
        with fake.lock:
            for move in fake.submitted:
                fake.statuses[move.batch_id] = (status, reasons)

    thread = threading.Thread(target=settle, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def alice(make_player):
    return make_player("alice")


@pytest.fixture
def bob(make_player):
    return make_player("bob")


def test_create_signs_and_submits_one_transaction_and_prints_the_batch_id(fake, alice, run):
    code, out, err = run("create", "g1", *alice.flags(fake.url))
    assert (code, err) == (0, "")
    [move] = fake.submitted
    assert (move.payload, move.signer) == ("g1,create,", alice.public_key)
    assert out == f"Submitted create game 'g1': batch {move.batch_id}\n"
    assert game_address("g1") in fake.state


def test_wait_reports_the_commit(fake, alice, run):
    code, out, _ = run("create", "g1", "--wait", "10", *alice.flags(fake.url))
    assert code == 0
    assert out.startswith("Committed create game 'g1': batch ")


def test_take_accepts_grid_notation_and_sends_the_space_number(fake, alice, run):
    fake.put_game("g1")
    code, out, _ = run("take", "g1", "b2", "--wait", *alice.flags(fake.url))
    assert code == 0
    assert fake.submitted[0].payload == "g1,take,5"
    assert out.startswith("Committed take 5 (B2) in game 'g1'")
    assert fake.state[game_address("g1")].decode() == f"g1,----X----,P2-NEXT,{alice.public_key},"


def test_delete_submits_a_delete(fake, alice, run):
    fake.put_game("g1")
    code, _, _ = run("delete", "g1", "--wait", "10", *alice.flags(fake.url))
    assert code == 0
    assert fake.submitted[0].payload == "g1,delete,"
    assert game_address("g1") not in fake.state


def test_two_players_alternate_until_a_win(fake, alice, bob, run):
    assert run("create", "g1", "--wait", "10", *alice.flags(fake.url))[0] == 0
    for player, space in [(alice, "A1"), (bob, "A2"), (alice, "B1"), (bob, "B2"), (alice, "C1")]:
        assert run("take", "g1", space, "--wait", "10", *player.flags(fake.url))[0] == 0
    code, out, _ = run("show", "g1", "--json", "--url", fake.url)
    assert code == 0
    assert '"state": "P1-WIN"' in out
    code, _, err = run("take", "g1", "9", *bob.flags(fake.url))
    assert code == 1
    assert "game 'g1' is over (P1-WIN)" in err


@pytest.mark.parametrize(
    ("setup", "argv", "reason"),
    [
        (None, ["take", "g1", "5"], "there is no game named 'g1'"),
        ({"board": "----X----", "state": "P2-NEXT"}, ["take", "g1", "5"], "game 'g1': space 5 is already taken"),
        ({"board": "XXXOO----", "state": "P1-WIN"}, ["take", "g1", "9"], "game 'g1' is over (P1-WIN)"),
        ({"board": "X--------", "state": "P2-NEXT", "p2": "03" + "e" * 64}, ["take", "g1", "9"], "player 2's turn"),
        ({}, ["create", "g1"], "game 'g1' already exists"),
        (None, ["delete", "g1"], "there is no game named 'g1'"),
    ],
)
def test_a_move_that_cannot_succeed_is_refused_before_anything_is_submitted(fake, alice, run, setup, argv, reason):
    if setup is not None:
        fake.put_game("g1", **setup)
    code, out, err = run(*argv, "--wait", "10", *alice.flags(fake.url))
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("xo: error: ")
    assert reason in err
    assert "nothing was submitted" in err
    assert fake.submitted == []
    assert not any(method == "POST" for method, _ in fake.requests)


def test_data_at_the_games_address_that_is_not_xo_state_refuses_the_move(fake, alice, run):
    fake.state[game_address("g1")] = b"g1,---------,P1-NEXT,,|garbage"
    code, out, err = run("take", "g1", "5", *alice.flags(fake.url))
    assert (code, out) == (1, "")
    assert err == (
        f"xo: error: state at {game_address('g1')}: entry 'garbage' should have 5 fields but has 1 "
        "(not XO data, so the processor cannot apply any move to this game); nothing was submitted\n"
    )
    assert fake.submitted == []


def test_no_validate_submits_without_reading_state_and_reports_the_validators_reason(fake, alice, bob, run):
    fake.put_game("g1", board="----X----", state="P2-NEXT", p1=alice.public_key)
    code, out, err = run("take", "g1", "5", "--no-validate", "--wait", "10", *bob.flags(fake.url))
    assert code == 1
    assert out == ""
    assert fake.gets("/state") == []
    assert len(fake.submitted) == 1
    assert err == "xo: error: the validator rejected take 5 (B2) in game 'g1': Invalid Action: space already taken.\n"


def test_without_wait_a_move_the_validator_will_reject_still_exits_0(fake, alice, run):
    code, out, _ = run("take", "nosuchgame", "3", "--no-validate", *alice.flags(fake.url))
    assert code == 0
    assert out.startswith("Submitted take 3 (C1) in game 'nosuchgame'")


@pytest.mark.parametrize("space", ["0", "10", "D2", "5.0", ""])
def test_an_invalid_space_is_refused_before_any_request(fake, alice, run, space):
    code, _, err = run("take", "g1", space, "--no-validate", *alice.flags(fake.url))
    assert code == 1
    assert "is not a board space" in err
    assert fake.requests == []


def test_a_comma_in_the_name_is_refused_even_without_validation(fake, alice, run):
    code, _, err = run("create", "a,b", "--no-validate", *alice.flags(fake.url))
    assert code == 1
    assert "cannot contain ','" in err
    assert fake.requests == []


def test_a_name_the_spec_forbids_is_refused_unless_validation_is_off(fake, alice, run):
    code, _, err = run("create", "a|b", *alice.flags(fake.url))
    assert code == 1
    assert "must not contain '|'" in err
    assert fake.requests == []
    code, _, _ = run("create", "a|b", "--no-validate", *alice.flags(fake.url))
    assert code == 0
    assert fake.submitted[0].payload == "a|b,create,"


def test_a_missing_key_is_reported_with_how_to_make_one(fake, tmp_path, run):
    code, _, err = run("create", "g1", "--url", fake.url, "--key-dir", tmp_path, "--username", "carol")
    assert code == 1
    assert f"no private key at {tmp_path / 'carol.priv'}" in err
    assert "xo keygen carol" in err
    assert fake.requests == []


def test_a_corrupt_key_file_is_reported(fake, tmp_path, run):
    (tmp_path / "carol.priv").write_text("not a key\n")
    (tmp_path / "carol.priv").chmod(0o600)
    code, _, err = run("create", "g1", "--url", fake.url, "--key-dir", tmp_path, "--username", "carol")
    assert code == 1
    assert "does not hold a private key" in err


def test_a_batch_still_pending_when_the_wait_runs_out_exits_4(fake, alice, run):
    fake.settle = "pending"
    code, out, err = run("create", "g1", "--wait", "1", *alice.flags(fake.url))
    assert code == 4
    assert out == ""
    assert err.startswith("xo: error: create game 'g1' is still PENDING after 1 s (batch ")


def test_when_the_status_cannot_be_read_after_the_post_the_error_names_the_batch(fake, alice, run):
    fake.answer_route("/batch_statuses", 503, b"<html>Service Unavailable</html>", "text/html")
    code, out, err = run("create", "g1", "--wait", "10", *alice.flags(fake.url))
    [move] = fake.submitted
    assert (code, out) == (3, "")
    assert err == (
        f"xo: error: the REST API at {fake.url} failed (HTTP 503); "
        f"batch {move.batch_id} was submitted and may still commit\n"
    )


def test_ctrl_c_while_waiting_names_the_submitted_batch(fake, alice, monkeypatch, run):
    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(submission, "wait_for_batch", interrupted)
    code, out, err = run("create", "g1", "--wait", "10", *alice.flags(fake.url))
    [move] = fake.submitted
    assert (code, out) == (130, "")
    assert err == f"xo: error: interrupted while waiting: batch {move.batch_id} was submitted and may still commit\n"


def test_ctrl_c_before_anything_is_submitted_just_says_interrupted(fake, alice, monkeypatch, run):
    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(moves, "check_move", interrupted)
    assert run("create", "g1", "--wait", "10", *alice.flags(fake.url)) == (130, "", "xo: error: interrupted\n")
    assert fake.submitted == []


def test_a_batch_the_rest_api_never_knows_ends_even_a_bare_wait_with_exit_4(fake, alice, monkeypatch, run):
    fake.settle = "forget"
    monkeypatch.setattr(waiting, "UNKNOWN_SECONDS", 0.2)
    code, out, err = run("create", "g1", "--wait", *alice.flags(fake.url))
    [move] = fake.submitted
    assert (code, out) == (4, "")
    assert err.endswith(
        f"xo: error: the REST API does not know batch {move.batch_id} (create game 'g1'): the validator never "
        "received it or has forgotten it, so it may never commit\n"
    )


def test_wait_zero_checks_the_status_once(fake, alice, run):
    fake.settle = "pending"
    code, _, err = run("create", "g1", "--wait", "0", *alice.flags(fake.url))
    assert code == 4
    assert "still PENDING after 0 s" in err
    assert len(fake.gets("/batch_statuses")) == 1


@pytest.mark.parametrize("hold_pending", [True, False], ids=["rest-api-holds-wait", "rest-api-ignores-wait"])
def test_bare_wait_waits_until_the_batch_commits_and_says_it_is_waiting(fake, alice, run, hold_pending):
    fake.settle = "pending"
    fake.hold_pending = hold_pending
    # committed while the first status request is held, or once one has answered PENDING and the next is asked
    settling = settle_when_asked(fake, "COMMITTED", [], 1 if hold_pending else 2)
    code, out, err = run("create", "g1", "--wait", *alice.flags(fake.url))
    settling.join()
    assert code == 0
    assert out.startswith("Committed create game 'g1'")
    assert "waiting for batch" in err
    assert len(fake.gets("/batch_statuses")) <= 30


def test_invalid_status_without_a_message_still_says_rejected(fake, alice, run):
    fake.settle = "pending"
    settling = settle_when_asked(fake, "INVALID", [{"id": "t", "message": ""}], 1)  # while the request is held
    code, _, err = run("create", "g1", "--wait", "10", *alice.flags(fake.url))
    settling.join()
    assert code == 1
    assert err == "xo: error: the validator rejected create game 'g1': no reason given\n"


def test_sigterm_while_waiting_names_the_submitted_batch_and_exits_143(fake, alice, monkeypatch, run):
    def terminated(*_args):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises before this ends

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(submission, "wait_for_batch", terminated)
    code, out, err = run("create", "g1", "--wait", "10", *alice.flags(fake.url))
    [move] = fake.submitted
    assert (code, out) == (143, "")
    assert err == (
        f"xo: error: terminated (SIGTERM) while waiting: batch {move.batch_id} was submitted and may still commit\n"
    )
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_winning_move_says_who_won_on_its_committing_line(fake, alice, bob, run):
    fake.put_game("g1", board="XX-OO----", state="P1-NEXT", p1=alice.public_key, p2=bob.public_key)
    code, out, err = run("take", "g1", "3", "--wait", "10", *alice.flags(fake.url))
    assert (code, err) == (0, "")
    [move] = fake.submitted
    assert out == (
        f"Committed take 3 (C1) in game 'g1', X won (player 1: alice ({alice.public_key[:6]}...)): "
        f"batch {move.batch_id}\n"
    )


def test_a_move_that_fills_the_board_says_it_is_a_tie(fake, alice, bob, run):
    fake.put_game("g1", board="XOXXOOOX-", state="P1-NEXT", p1=alice.public_key, p2=bob.public_key)
    code, out, _ = run("take", "g1", "9", "--wait", "10", *alice.flags(fake.url))
    assert code == 0
    assert out.startswith("Committed take 9 (C3) in game 'g1', a tie (the board is full, nobody won): batch ")


def test_a_move_that_does_not_end_the_game_says_which_mark_the_mover_plays(fake, alice, run):
    fake.put_game("g1")
    code, out, _ = run("take", "g1", "5", "--wait", "10", *alice.flags(fake.url))
    assert code == 0
    assert out == f"Committed take 5 (B2) in game 'g1', you play X: batch {fake.submitted[0].batch_id}\n"


def test_a_player_who_finds_x_taken_is_told_she_plays_o(fake, alice, bob, run):
    """A bot took X before alice's first move: her move's line says so, in words, no raw state."""
    fake.put_game("g1", board="X--------", state="P2-NEXT", p1=bob.public_key)
    code, out, _ = run("take", "g1", "5", "--wait", "10", *alice.flags(fake.url))
    assert code == 0
    assert out.startswith("Committed take 5 (B2) in game 'g1', you play O: batch ")
    for raw in ("P1-NEXT", "P2-NEXT", "X---X----", alice.public_key[:6]):
        assert raw not in out


def test_json_of_a_committed_move_carries_the_game_it_left(fake, alice, bob, run):
    fake.put_game("g1", board="XX-OO----", state="P1-NEXT", p1=alice.public_key, p2=bob.public_key)
    code, out, _ = run("take", "g1", "C1", "--wait", "10", "--json", *alice.flags(fake.url))
    assert code == 0
    [move] = fake.submitted
    assert json.loads(out) == {
        "action": "take",
        "name": "g1",
        "space": 3,
        "batch_id": move.batch_id,
        "status": "COMMITTED",
        "game": {
            "name": "g1",
            "board": "XXXOO----",
            "state": "P1-WIN",
            "player1": alice.public_key,
            "player2": bob.public_key,
            "address": game_address("g1"),
        },
    }


def test_json_of_a_delete_has_no_game_left_and_without_wait_no_game_at_all(fake, alice, run):
    fake.put_game("g1")
    code, out, _ = run("delete", "g1", "--wait", "10", "--json", *alice.flags(fake.url))
    assert code == 0
    assert json.loads(out)["game"] is None
    code, out, _ = run("create", "g2", "--json", *alice.flags(fake.url))
    assert code == 0
    assert json.loads(out) == {
        "action": "create",
        "name": "g2",
        "space": None,
        "batch_id": fake.submitted[-1].batch_id,
        "status": "SUBMITTED",
    }


def test_a_receipt_that_cannot_be_read_is_a_warning_the_move_still_committed(fake, alice, bob, run):
    fake.put_game("g1", board="XX-OO----", state="P1-NEXT", p1=alice.public_key, p2=bob.public_key)
    fake.answer_route("/receipts", 404, b"<html>Not Found</html>", "text/html")
    code, out, err = run("take", "g1", "3", "--wait", "10", *alice.flags(fake.url))
    assert code == 0
    assert out.startswith("Committed take 3 (C1) in game 'g1': batch ")
    assert err.startswith("xo: warning: the move committed, but its receipt cannot be read: ")


def test_taking_the_second_seat_with_the_first_seats_key_is_refused_before_submitting(fake, alice, run):
    fake.put_game("g1", board="----X----", state="P2-NEXT", p1=alice.public_key)
    code, out, err = run("take", "g1", "1", "--wait", "10", *alice.flags(fake.url))
    assert (code, out) == (1, "")
    assert err.startswith("xo: error: game 'g1': your key already holds player 1's seat (X)")
    assert "--both-seats" in err
    assert fake.submitted == []


@pytest.mark.parametrize("flag", ["--both-seats", "--no-validate"])
def test_both_seats_or_no_validate_lets_one_key_take_both_seats(fake, alice, run, flag):
    fake.put_game("g1", board="----X----", state="P2-NEXT", p1=alice.public_key)
    code, _, err = run("take", "g1", "1", "--wait", "10", flag, *alice.flags(fake.url))
    assert (code, err) == (0, "")
    assert fake.state[game_address("g1")].decode().endswith(f",{alice.public_key},{alice.public_key}")


def test_out_of_turn_names_the_player_whose_turn_it_is(fake, alice, bob, run):
    fake.put_game("g1", board="X--------", state="P2-NEXT", p1=alice.public_key, p2=bob.public_key)
    code, _, err = run("take", "g1", "5", *alice.flags(fake.url))
    assert code == 1
    assert err == (
        f"xo: error: game 'g1': it is bob's turn (player 2, {bob.public_key[:6]}...); nothing was submitted\n"
    )
