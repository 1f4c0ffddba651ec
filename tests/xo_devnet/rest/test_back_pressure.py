"""Back-pressure and faults, on a ledger built for the purpose (tiny queue, no processor at first).

A full queue answers 429/31 and keeps what it already accepted; once a processor
connects, every accepted batch is committed. A submission a data dir cannot record
is refused the same way. An unexpected fault in the ledger is answered as error 10
and the server goes on serving; a client hanging up mid-upload is no fault at all.
"""

import logging
import socket
import subprocess
import time

import pytest

from tests.xo_devnet.rest.threaded_devnet import ThreadedDevnet
from xo_core.batches import make_batch, make_transaction
from xo_devnet.launcher import XO_TP
from xo_devnet.ledger import LedgerConfig
from xo_devnet.storage import Storage, StorageError
from xo_tp.family import game_address


@pytest.fixture
def tiny_queue():
    devnet = ThreadedDevnet(LedgerConfig(None, component_endpoint="tcp://127.0.0.1:0", max_pending_batches=2))
    devnet.start()
    yield devnet
    devnet.stop()


def test_a_full_queue_answers_429_and_keeps_what_it_accepted(tiny_queue, api_for, player, make_xo_batch):
    api = api_for(tiny_queue.server.url)
    first, second, third = (make_xo_batch(player, f"queued-{n}", "create") for n in range(3))
    assert api.submit(first, second).status == 202
    refused = api.submit(third)
    assert (refused.status, refused.error_code) == (429, 31)
    ids = f"{first.header_signature},{second.header_signature},{third.header_signature}"
    statuses = api.get(f"/batch_statuses?id={ids}").json["data"]
    assert [status["status"] for status in statuses] == ["PENDING", "PENDING", "UNKNOWN"]

    command = XO_TP.command(tiny_queue.ledger.component_endpoint, 0)
    processor = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        statuses = api.get(f"/batch_statuses?id={ids}&wait=60").json["data"]
        assert [status["status"] for status in statuses] == ["COMMITTED", "COMMITTED", "UNKNOWN"]
        assert api.submit(third).status == 202
        assert api.get(f"/batch_statuses?id={third.header_signature}&wait=60").json["data"][0]["status"] == "COMMITTED"
    finally:
        processor.terminate()
        processor.wait(30)


def test_batches_that_cannot_run_yet_get_429_once_they_hold_their_share_while_runnable_ones_are_accepted(
    api_for, player, make_xo_batch
):
    config = LedgerConfig(
        None, component_endpoint="tcp://127.0.0.1:0", families=frozenset({("xo", "1.0")}), max_pending_batches=10,
        max_waiting_batches=2,
    )  # fmt: skip
    devnet = ThreadedDevnet(config).start()
    processor = subprocess.Popen(
        XO_TP.command(devnet.ledger.component_endpoint, 0), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        api = api_for(devnet.server.url)
        deadline = time.monotonic() + 30
        while not devnet.ledger.processors() and time.monotonic() < deadline:
            time.sleep(0.05)
        never = "ab" * 64
        waiting = [make_batch(player, [depending_on(player, f"waits-{n}", never)]) for n in range(3)]
        assert [api.submit(batch).status for batch in waiting[:2]] == [202, 202]
        refused = api.submit(waiting[2])
        assert (refused.status, refused.error_code) == (429, 31)
        assert "2 batches that cannot run yet" in refused.json["error"]["message"]
        runnable = [make_xo_batch(player, f"runs-{n}", "create") for n in range(5)]
        assert {status["status"] for status in api.submit_and_wait(*runnable)} == {"COMMITTED"}
    finally:
        processor.terminate()
        processor.wait(30)
        devnet.stop()


def depending_on(player, game: str, dependency: str):
    return make_transaction(
        player, f"{game},create,".encode(), family_name="xo", family_version="1.0", inputs=[game_address(game)],
        outputs=[game_address(game)], dependencies=[dependency],
    )  # fmt: skip


def test_an_unexpected_fault_is_error_10_and_the_server_lives_on(tiny_queue, api_for, monkeypatch):
    api = api_for(tiny_queue.server.url, allow_server_errors=True)

    def broken():
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(tiny_queue.ledger, "chain_head", broken)
    answer = api.get("/blocks")
    assert (answer.status, answer.error_code) == (500, 10)
    assert "disk on fire" not in answer.json["error"]["message"]
    monkeypatch.undo()
    assert api.get("/blocks").status == 200


def test_a_client_hanging_up_mid_upload_is_logged_at_debug_not_as_an_error(tiny_queue, api_for, caplog):
    caplog.set_level(logging.DEBUG)
    server = tiny_queue.server
    head = (
        b"POST /batches HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n"
    )
    with socket.create_connection((server.host, server.port), timeout=10) as client:
        client.sendall(head + b"\x0a" * 10)
        time.sleep(0.3)  # the route is now waiting for the rest of the body
    deadline = time.monotonic() + 10
    while "client hung up during POST /batches" not in caplog.text and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "client hung up during POST /batches" in caplog.text
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING] == []
    assert api_for(server.url).get("/blocks").status == 200



def test_a_submission_the_data_dir_cannot_record_answers_429_and_is_not_kept(tmp_path, api_for, player, make_xo_batch,
                                                                              monkeypatch):
    def disk_full(storage, batches):
        raise StorageError("database or disk is full")

    devnet = ThreadedDevnet(LedgerConfig(tmp_path, component_endpoint="tcp://127.0.0.1:0")).start()
    try:
        api = api_for(devnet.server.url)
        kept, refused = make_xo_batch(player, "kept", "create"), make_xo_batch(player, "refused", "create")
        assert api.submit(kept).status == 202
        monkeypatch.setattr(Storage, "add_pending", disk_full)
        answer = api.submit(refused)
        assert (answer.status, answer.error_code) == (429, 31)
        statuses = api.get(f"/batch_statuses?id={kept.header_signature},{refused.header_signature}").json["data"]
        assert [status["status"] for status in statuses] == ["PENDING", "UNKNOWN"]
    finally:
        devnet.stop()


def test_a_fault_repeated_by_a_client_is_one_error_with_its_traceback_then_a_count(tiny_queue, api_for, monkeypatch,
                                                                                    caplog):
    caplog.set_level(logging.DEBUG)
    api = api_for(tiny_queue.server.url, allow_server_errors=True)

    def broken():
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(tiny_queue.ledger, "chain_head", broken)
    for _ in range(30):
        assert api.get("/blocks").status == 500
    errors = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert len(errors) == 1
    assert errors[0].exc_info is not None and "disk on fire" in str(errors[0].exc_info[1])
