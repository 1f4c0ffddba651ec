"""The runtime's small pieces: back-off, the handler table, outcome mapping, correlation ids, context calls."""

import threading

import pytest
from greenlet import GreenletExit
from sawtooth_sdk.processor.exceptions import AuthorizationException, InternalError, InvalidTransaction

from tp_runtime.backoff import Backoff
from tp_runtime.context import Context
from tp_runtime.envelope import correlation_ids, message_type_name
from tp_runtime.errors import ValidatorConnectionLost
from tp_runtime.handlers import Handlers
from tp_runtime.outcome import apply_transaction
from xo_core.protobuf.processor_pb2 import TpProcessRequest, TpProcessResponse, TpRegisterRequest
from xo_core.protobuf.state_context_pb2 import (
    TpEventAddResponse,
    TpReceiptAddDataResponse,
    TpStateDeleteResponse,
    TpStateEntry,
    TpStateGetResponse,
    TpStateSetResponse,
)
from xo_core.protobuf.validator_pb2 import Message


class Family:
    def __init__(self, name: str, versions: list[str], raises: BaseException | None = None) -> None:
        self.family_name = name
        self.family_versions = versions
        self.namespaces = ["abcdef"]
        self._raises = raises

    def apply(self, transaction, context) -> None:
        if self._raises is not None:
            raise self._raises


def test_backoff_doubles_up_to_its_ceiling_and_starts_over_after_a_success():
    backoff = Backoff(0.1, 0.5)

    assert [backoff.next_delay() for _ in range(5)] == [0.1, 0.2, 0.4, 0.5, 0.5]
    backoff.reset()
    assert backoff.next_delay() == 0.1


@pytest.mark.parametrize(("first", "ceiling"), [(0, 1), (2, 1), (-1, 5)])
def test_backoff_refuses_nonsense(first, ceiling):
    with pytest.raises(ValueError, match="back-off"):
        Backoff(first, ceiling)


def test_handlers_register_each_version_with_the_runtimes_settings():
    handlers = Handlers()
    intkey = Family("intkey", ["1.0"])
    xo = Family("xo", ["1.0", "1.1"])
    handlers.add(intkey)
    handlers.add(xo)

    requests = handlers.register_requests(max_occupancy=5)

    assert [(request.family, request.version) for request in requests] == [
        ("intkey", "1.0"),
        ("xo", "1.0"),
        ("xo", "1.1"),
    ]
    assert {request.max_occupancy for request in requests} == {5}
    assert {request.protocol_version for request in requests} == {1}
    assert {request.request_header_style for request in requests} == {TpRegisterRequest.EXPANDED}
    assert handlers.find("xo", "1.1") is xo
    assert handlers.find("xo", "2.0") is None
    assert handlers.describe() == "intkey 1.0, xo 1.0, xo 1.1"


def test_handlers_refuse_a_family_version_served_twice_or_no_versions():
    handlers = Handlers()
    handlers.add(Family("xo", ["1.0"]))

    with pytest.raises(ValueError, match="two handlers"):
        handlers.add(Family("xo", ["1.0"]))
    with pytest.raises(ValueError, match="no family versions"):
        handlers.add(Family("empty", []))


@pytest.mark.parametrize(
    ("raised", "status", "message", "extended_data"),
    [
        (None, TpProcessResponse.OK, "", b""),
        (InvalidTransaction("bad move", b"why"), TpProcessResponse.INVALID_TRANSACTION, "bad move", b"why"),
        (AuthorizationException("outside"), TpProcessResponse.INVALID_TRANSACTION, "outside", b""),
        (InternalError("corrupt", b"where"), TpProcessResponse.INTERNAL_ERROR, "corrupt", b"where"),
        (KeyError("k"), TpProcessResponse.INTERNAL_ERROR, "KeyError: 'k'", b""),
        (SystemExit(2), TpProcessResponse.INTERNAL_ERROR, "SystemExit: 2", b""),
    ],
)
def test_outcomes_map_to_the_sdks_statuses(raised, status, message, extended_data):
    response = apply_transaction(Family("f", ["1"], raised), TpProcessRequest(signature="ab" * 64), object())

    assert (response.status, response.message, response.extended_data) == (status, message, extended_data)


@pytest.mark.parametrize("passing", [ValidatorConnectionLost("gone"), GreenletExit()])
def test_a_lost_validator_or_an_exiting_processor_is_no_outcome(passing):
    with pytest.raises(type(passing)):
        apply_transaction(Family("f", ["1"], passing), TpProcessRequest(), object())


def test_correlation_ids_are_unique_across_threads_and_sources():
    first, second = correlation_ids(), correlation_ids()
    seen: list[str] = []

    def take() -> None:
        seen.extend(first() for _ in range(1000))

    threads = [threading.Thread(target=take) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seen.extend(second() for _ in range(1000))

    assert len(set(seen)) == 5000


def test_message_types_are_named_and_unknown_ones_numbered():
    assert message_type_name(5) == "TP_PROCESS_REQUEST"
    assert message_type_name(9999) == "9999"


class CannedRequester:
    """A requester whose validator always gives ``reply``; it records what was asked."""

    def __init__(self, reply: bytes) -> None:
        self._reply = reply
        self.asked: list[tuple[int, int]] = []

    def request(self, message_type: int, content: bytes, reply_type: int, timeout: float | None = None) -> bytes:
        self.asked.append((message_type, reply_type))
        return self._reply


ADDRESS = "abcdef" + "0" * 64


@pytest.mark.parametrize(
    ("call", "reply", "asked", "raised", "message"),
    [
        (
            lambda context: context.get_state([ADDRESS]),
            TpStateGetResponse(status=TpStateGetResponse.AUTHORIZATION_ERROR),
            (Message.TP_STATE_GET_REQUEST, Message.TP_STATE_GET_RESPONSE),
            AuthorizationException,
            f"Tried to get unauthorized address: ['{ADDRESS}']",
        ),
        (
            lambda context: context.set_state({ADDRESS: b"data"}),
            TpStateSetResponse(status=TpStateSetResponse.AUTHORIZATION_ERROR),
            (Message.TP_STATE_SET_REQUEST, Message.TP_STATE_SET_RESPONSE),
            AuthorizationException,
            f"Tried to set unauthorized address: ['{ADDRESS}']",
        ),
        (
            lambda context: context.delete_state([ADDRESS]),
            TpStateDeleteResponse(status=TpStateDeleteResponse.AUTHORIZATION_ERROR),
            (Message.TP_STATE_DELETE_REQUEST, Message.TP_STATE_DELETE_RESPONSE),
            AuthorizationException,
            f"Tried to delete unauthorized address: ['{ADDRESS}']",
        ),
        (
            lambda context: context.add_receipt_data(b"\x00receipt"),
            TpReceiptAddDataResponse(status=TpReceiptAddDataResponse.ERROR),
            (Message.TP_RECEIPT_ADD_DATA_REQUEST, Message.TP_RECEIPT_ADD_DATA_RESPONSE),
            InternalError,
            "Failed to add receipt data: b'\\x00receipt'",
        ),
        (
            lambda context: context.add_event("xo/take", [("name", "g1")], b"data"),
            TpEventAddResponse(status=TpEventAddResponse.ERROR),
            (Message.TP_EVENT_ADD_REQUEST, Message.TP_EVENT_ADD_RESPONSE),
            InternalError,
            "Failed to add event: (xo/take, [('name', 'g1')], b'data')",
        ),
    ],
    ids=["get", "set", "delete", "receipt", "event"],
)
def test_each_context_call_raises_the_sdks_exception_when_the_validator_refuses_it(
    call, reply, asked, raised, message
):
    requester = CannedRequester(reply.SerializeToString())

    with pytest.raises(raised) as refused:
        call(Context(requester, "ctx"))

    assert str(refused.value) == message
    assert requester.asked == [asked]


def test_context_calls_return_what_the_validator_answered():
    entry = TpStateEntry(address=ADDRESS, data=b"game")
    context = Context(CannedRequester(TpStateGetResponse(status=1, entries=[entry]).SerializeToString()), "ctx")
    assert [(found.address, found.data) for found in context.get_state([ADDRESS])] == [(ADDRESS, b"game")]

    deleted = TpStateDeleteResponse(status=TpStateDeleteResponse.OK, addresses=[ADDRESS])
    assert Context(CannedRequester(deleted.SerializeToString()), "ctx").delete_state([ADDRESS]) == [ADDRESS]
