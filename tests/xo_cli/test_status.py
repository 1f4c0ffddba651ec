"""xo status BATCH_ID: a batch submitted earlier, looked up later; its status printed and said by the exit code."""

import json
import os
import signal
import threading
import time

import pytest

from client_core import status as status_command

BATCH = "c" * 128


@pytest.mark.parametrize(
    ("stored", "code", "line"),
    [
        (("COMMITTED", []), 0, f"batch {BATCH}: COMMITTED"),
        (("INVALID", [{"id": "t", "message": "game 'g1' is over (P1-WIN)"}]), 1,
         f"batch {BATCH}: INVALID: game 'g1' is over (P1-WIN)"),
        (("PENDING", []), 4, f"batch {BATCH}: PENDING: not decided yet"),
        (None, 4, f"batch {BATCH}: UNKNOWN: the REST API does not know it (never received, or forgotten)"),
    ],
)
def test_each_status_is_one_line_and_its_own_exit_code(fake, run, stored, code, line):
    if stored is not None:
        fake.statuses[BATCH] = stored
    assert run("status", BATCH, "--url", fake.url) == (code, line + "\n", "")


def test_a_batch_submitted_without_wait_is_found_committed_later(fake, make_player, run):
    alice = make_player("alice")
    _, out, _ = run("create", "g1", *alice.flags(fake.url))
    batch_id = out.split("batch ")[1].strip()
    assert run("status", batch_id, "--url", fake.url) == (0, f"batch {batch_id}: COMMITTED\n", "")


def test_status_json_for_scripts(fake, run):
    fake.statuses[BATCH] = ("INVALID", [{"id": "t", "message": "no"}])
    code, out, _ = run("status", BATCH, "--json", "--url", fake.url)
    assert code == 1
    assert json.loads(out) == {"batch_id": BATCH, "status": "INVALID", "reasons": ["no"]}


def test_wait_follows_the_batch_until_it_is_decided(fake, run):
    fake.statuses[BATCH] = ("PENDING", [])
    timer = threading.Timer(0.4, lambda: fake.statuses.__setitem__(BATCH, ("COMMITTED", [])))
    timer.start()
    try:
        code, out, _ = run("status", BATCH, "--wait", "10", "--url", fake.url)
    finally:
        timer.cancel()
    assert (code, out) == (0, f"batch {BATCH}: COMMITTED\n")


def test_wait_that_runs_out_says_so(fake, run):
    fake.statuses[BATCH] = ("PENDING", [])
    assert run("status", BATCH, "--wait", "0", "--url", fake.url)[:2] == (4, f"batch {BATCH}: PENDING after 0 s: "
                                                                             "not decided yet\n")


def test_uppercase_hex_is_the_same_batch(fake, run):
    fake.statuses[BATCH] = ("COMMITTED", [])
    assert run("status", BATCH.upper(), "--url", fake.url)[0] == 0


@pytest.mark.parametrize("given", ["c" * 129, "ccccc", "g" * 128, "", "c" * 128 + "\x1b", "cccccc...g"])
def test_what_is_not_a_batch_id_is_refused_before_any_request(fake, run, given):
    code, out, err = run("status", given, "--url", fake.url)
    assert (code, out) == (1, "")
    assert "is not a batch id: a batch id is 128 hex characters" in err
    assert "\x1b" not in err
    assert fake.requests == []


def test_sigterm_while_waiting_names_the_batch(fake, monkeypatch, run):
    def terminated(*_args):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)

    monkeypatch.setattr(status_command, "wait_for_batch", terminated)
    code, _, err = run("status", BATCH, "--wait", "--url", fake.url)
    assert code == 143
    assert err.endswith(f"xo: error: terminated (SIGTERM) while waiting for batch {BATCH}\n")


def test_a_rejection_reason_a_processor_chose_is_escaped(fake, run):
    fake.statuses[BATCH] = ("INVALID", [{"id": "t", "message": "bad\x1b[2J\nmove"}])
    code, out, _ = run("status", BATCH, "--url", fake.url)
    assert code == 1
    assert out == f"batch {BATCH}: INVALID: bad\\x1b[2J\\x0amove\n"
