"""The runtime with handlers written for the test, in-process against a validator peer."""

import hashlib
import sys
import threading
import time

import pytest
from sawtooth_sdk.processor.exceptions import InternalError, InvalidTransaction
from sawtooth_sdk.processor.handler import TransactionHandler

from tests.tp_runtime.validator_peer import DEADLINE, ValidatorPeer, call_context, process_request, signer_key
from tp_runtime import RegistrationRejected
from tp_runtime import core as core_module
from xo_core.protobuf.network_pb2 import PingRequest
from xo_core.protobuf.processor_pb2 import TpProcessResponse, TpRegisterResponse
from xo_core.protobuf.validator_pb2 import Message

NAMESPACE = hashlib.sha512(b"probe").hexdigest()[:6]
OTHER_NAMESPACE = hashlib.sha512(b"other").hexdigest()[:6]
SIGNER = signer_key(7)
BIG_RECEIPT = b"r" * (4 << 20)  # as large as the biggest loopback socket buffer Linux grows by default


def address(suffix: str) -> str:
    return NAMESPACE + hashlib.sha512(suffix.encode()).hexdigest()[:64]


class ProbeHandler(TransactionHandler):
    """A family whose payload names what ``apply`` should do, so each test drives the runtime directly."""

    def __init__(self) -> None:
        self.seen: dict[str, object] = {}
        self.blocked = threading.Event()
        self.release = threading.Event()

    @property
    def family_name(self) -> str:
        return "probe"

    @property
    def family_versions(self) -> list[str]:
        return ["1.0", "2.0"]

    @property
    def namespaces(self) -> list[str]:
        return [NAMESPACE]

    def apply(self, transaction, context) -> None:
        action = transaction.payload.decode()
        if action == "invalid":
            raise InvalidTransaction("no such move", extended_data=b"\x01\x02")
        if action == "internal":
            raise InternalError("state is corrupt")
        if action == "crash":
            raise ValueError("a bug in the handler")
        if action == "exit":
            sys.exit(3)
        if action == "outside":
            context.get_state([OTHER_NAMESPACE + "0" * 64])
        if action == "big-receipt":
            context.add_receipt_data(BIG_RECEIPT)
        if action == "block":
            self.blocked.set()
            self.release.wait(DEADLINE)
        if action.startswith("read:"):
            self.seen[action] = context.get_state([address(action)])
        if action == "everything":
            self.seen["set"] = context.set_state({address("a"): b"alpha", address("b"): b"beta"})
            self.seen["get"] = context.get_state([address("a"), address("missing")])
            self.seen["delete"] = context.delete_state([address("b")])
            context.add_receipt_data(b"receipt bytes")
            context.add_event("probe/done", [("k", "v")], b"event data")
        if action == "own-thread":
            worker = threading.Thread(target=lambda: self.seen.update(thread=context.get_state([address("a")])))
            worker.start()
            worker.join(DEADLINE)


def probe(action: str, *, version: str = "1.0", family: str = "probe"):
    declared = [NAMESPACE]
    return process_request(
        action.encode(), signer=SIGNER, inputs=declared, outputs=declared, family=family, version=version
    )


@pytest.fixture
def handler() -> ProbeHandler:
    return ProbeHandler()


@pytest.fixture
def registered(peer, run_processor, handler):
    """A processor serving the probe family, registered with ``peer``."""
    running = run_processor(peer.url, handler, max_occupancy=3, request_timeout=0.5, shutdown_grace=0.5)
    peer.expect_registration()
    peer.expect_registration()  # one per family version
    return running


def test_registers_each_family_version(peer, run_processor, handler):
    run_processor(peer.url, handler, max_occupancy=7)

    registrations = [peer.expect_registration(), peer.expect_registration()]

    assert {registration.version for registration in registrations} == {"1.0", "2.0"}
    assert {registration.max_occupancy for registration in registrations} == {7}
    assert {tuple(registration.namespaces) for registration in registrations} == {(NAMESPACE,)}


def test_the_context_calls_reach_the_validator_and_return_what_it_says(peer, registered, handler):
    peer.state[address("b")] = b"old"

    outcome = peer.process(probe("everything", version="2.0"))

    assert outcome.status == "OK"
    assert handler.seen["set"] == [address("a"), address("b")]
    [entry] = handler.seen["get"]  # the missing address is left out
    assert (entry.address, entry.data) == (address("a"), b"alpha")
    assert handler.seen["delete"] == [address("b")]
    assert peer.state == {address("a"): b"alpha"}
    assert outcome.receipts == [b"receipt bytes"]
    [event] = outcome.events
    assert event.event_type == "probe/done"
    assert [(attribute.key, attribute.value) for attribute in event.attributes] == [("k", "v")]
    assert event.data == b"event data"


@pytest.mark.parametrize(
    ("action", "status", "message", "extended_data"),
    [
        ("invalid", "INVALID_TRANSACTION", "no such move", b"\x01\x02"),
        ("outside", "INVALID_TRANSACTION", "Tried to get unauthorized address", b""),
        ("internal", "INTERNAL_ERROR", "state is corrupt", b""),
        ("crash", "INTERNAL_ERROR", "ValueError: a bug in the handler", b""),
        ("exit", "INTERNAL_ERROR", "SystemExit: 3", b""),
    ],
)
def test_handler_outcomes_map_to_response_statuses_and_the_processor_carries_on(
    peer, registered, action, status, message, extended_data
):
    outcome = peer.process(probe(action))

    assert outcome.status == status
    assert message in outcome.response.message
    assert outcome.response.extended_data == extended_data
    assert peer.process(probe("read:after")).status == "OK"


def test_a_header_sent_only_as_bytes_is_parsed_for_the_handler(peer, registered, handler):
    request = probe("read:raw")
    request.header_bytes = request.header.SerializeToString()
    request.ClearField("header")

    assert peer.process(request).status == "OK"
    assert "read:raw" in handler.seen


def test_an_unreadable_process_request_is_an_internal_error(peer, registered):
    correlation_id = peer.send(Message.TP_PROCESS_REQUEST, b"\xff\xff\xff")

    response = peer.receive(lambda message: message.correlation_id == correlation_id)

    assert response.message_type == Message.TP_PROCESS_RESPONSE
    assert TpProcessResponse.FromString(response.content).status == TpProcessResponse.INTERNAL_ERROR
    assert "unreadable TpProcessRequest" in TpProcessResponse.FromString(response.content).message


def test_frames_that_are_not_messages_are_ignored(peer, registered):
    peer.send_raw(b"\xff\xfe not a protobuf")
    peer.send(Message.TP_STATE_GET_RESPONSE, b"", "a-reply-nobody-waits-for")

    assert peer.ping() < 5.0
    assert peer.process(probe("read:still-fine")).status == "OK"


def test_a_transaction_of_a_family_it_does_not_serve_is_an_internal_error(peer, registered):
    outcome = peer.process(probe("read:x", family="intkey"))

    assert outcome.status == "INTERNAL_ERROR"
    assert "no handler for family 'intkey'" in outcome.response.message


def test_a_context_call_the_validator_never_answers_times_out(peer, registered):
    request = probe("read:slow")
    correlation_id = peer.start_transaction(request)
    unanswered = peer.receive_type(Message.TP_STATE_GET_REQUEST)

    outcome = peer.serve(request, correlation_id)

    assert outcome.status == "INTERNAL_ERROR"
    assert "did not answer TP_STATE_GET_REQUEST within 0.5 s" in outcome.response.message
    # the late answer is ignored and the processor keeps working
    peer.send(Message.TP_STATE_GET_RESPONSE, b"", unanswered.correlation_id)
    assert peer.process(probe("read:next")).status == "OK"


def test_a_handler_may_call_its_context_from_a_thread_of_its_own(peer, registered, handler):
    peer.state[address("a")] = b"from a thread"

    assert peer.process(probe("own-thread")).status == "OK"

    [entry] = handler.seen["thread"]
    assert entry.data == b"from a thread"


def test_runs_up_to_max_occupancy_transactions_at_once(peer, registered):
    requests = [probe(f"read:{index}") for index in range(4)]
    ids = [peer.start_transaction(request) for request in requests]

    # three handlers wait on their reads at the same time; the fourth waits for a free slot
    reads = [peer.receive_type(Message.TP_STATE_GET_REQUEST) for _ in range(3)]
    assert {call_context(read) for read in reads} == {request.context_id for request in requests[:3]}
    assert not any(m.message_type == Message.TP_STATE_GET_REQUEST for m in peer.quiet_for(0.2))

    for read, request, correlation_id in zip(reads, requests, ids, strict=False):
        peer.answer_call(request, read, [], [])
        assert peer.serve(request, correlation_id).status == "OK"
    assert peer.serve(requests[3], ids[3]).status == "OK"


def test_answers_pings_while_a_handler_blocks_the_handler_thread(peer, registered, handler):
    request = probe("block")
    correlation_id = peer.start_transaction(request)
    assert handler.blocked.wait(DEADLINE)

    latencies = [peer.ping() for _ in range(3)]

    assert max(latencies) < 1.0
    assert not any(m.message_type == Message.TP_PROCESS_RESPONSE for m in peer.quiet_for(0.1))
    handler.release.set()
    assert peer.serve(request, correlation_id).status == "OK"


def test_stopping_unregisters_and_finishes_the_transaction_in_flight(peer, registered):
    request = probe("read:last")
    correlation_id = peer.start_transaction(request)
    read = peer.receive_type(Message.TP_STATE_GET_REQUEST)

    registered.processor.stop()
    peer.expect_unregistration()
    peer.answer_call(request, read, [], [])

    assert peer.serve(request, correlation_id).status == "OK"
    registered.thread.join(DEADLINE)
    assert not registered.thread.is_alive()
    assert registered.errors == []


def test_stopping_abandons_a_transaction_that_does_not_finish_in_time(peer, registered, handler, monkeypatch, caplog):
    monkeypatch.setattr(core_module, "HANDLER_THREAD_STOP_WAIT", 0.1)  # the handler stays blocked: no need for 1 s
    peer.start_transaction(probe("block"))
    assert handler.blocked.wait(DEADLINE)
    started = time.monotonic()

    registered.processor.stop()
    peer.expect_unregistration()
    registered.thread.join(DEADLINE)

    assert not registered.thread.is_alive()
    assert time.monotonic() - started < 4.0
    assert "abandoning 1 transaction(s) in flight" in caplog.text
    assert "a handler is still running; leaving it behind" in caplog.text
    handler.release.set()


def test_a_refused_registration_stops_the_processor_with_an_error(peer, run_processor, handler):
    running = run_processor(peer.url, handler)

    peer.expect_registration(status=TpRegisterResponse.ERROR)
    peer.expect_registration()
    running.thread.join(DEADLINE)

    assert not running.thread.is_alive()
    [error] = running.errors
    assert isinstance(error, RegistrationRejected)
    assert "refused to register family 'probe'" in str(error)


def test_a_processor_without_handlers_refuses_to_start(run_processor):
    running = run_processor("tcp://127.0.0.1:1")
    running.thread.join(DEADLINE)

    [error] = running.errors
    assert isinstance(error, ValueError)


def test_a_registration_that_is_never_answered_is_retried(peer, run_processor, handler):
    run_processor(peer.url, handler, register_timeout=0.3)
    peer.receive_type(Message.TP_REGISTER_REQUEST)
    peer.receive_type(Message.TP_REGISTER_REQUEST)  # both versions, left unanswered

    # the processor gives up on that connection and registers afresh on a new one
    assert peer.expect_registration().family == "probe"
    assert peer.expect_registration().family == "probe"


def test_an_endpoint_zeromq_refuses_is_an_error(run_processor, handler):
    running = run_processor("tcp://*:4004", handler)
    running.thread.join(DEADLINE)

    [error] = running.errors
    assert isinstance(error, ValueError)
    assert "cannot connect to 'tcp://*:4004'" in str(error)


def test_a_validator_that_stops_reading_gets_a_new_session_and_its_transactions_answered(
    run_processor, handler, monkeypatch
):
    # a small send queue, so that a stalled validator fills it within a few dozen frames
    monkeypatch.setattr(core_module, "send_queue_limit", lambda max_occupancy: 8)
    with ValidatorPeer(stall_after=1) as peer:
        run_processor(peer.url, handler, max_occupancy=3, request_timeout=DEADLINE)
        peer.expect_registration()
        peer.expect_registration()
        first_session = peer.identity
        # the validator stops reading: three receipts fill every buffer, then the replies to its pings do not fit
        stalled = [probe("big-receipt") for _ in range(3)]
        for request in stalled:
            peer.start_transaction(request)
        time.sleep(0.5)
        for _ in range(50):
            peer.send(Message.PING_REQUEST, PingRequest().SerializeToString())

        # the processor gives the session up and registers on a new connection, which the validator sees
        assert peer.expect_registration(timeout=5.0).family == "probe"
        peer.expect_registration()
        assert peer.identity != first_session
        peer.quiet_for(0.2)  # drops what the first session had sent before it stalled
        # and so the validator sends the unanswered transactions again, and they are answered
        for request in stalled:
            outcome = peer.process(request)
            assert outcome.status == "OK"
            assert outcome.receipts == [BIG_RECEIPT]
