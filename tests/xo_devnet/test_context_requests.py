"""A processor's requests within a transaction's context: refused ones are answered, and logged without a flood.

A client decides what a processor asks for (a transaction whose inputs leave out the game
it names makes ``xo-tp`` read outside them), so each refusal cannot be a line of its own:
one line per kind of request and rule per interval, then the count.
"""

from __future__ import annotations

import logging

from xo_core.log_limits import LogLimiter
from xo_core.protobuf.state_context_pb2 import TpStateEntry, TpStateGetRequest, TpStateGetResponse, TpStateSetRequest
from xo_core.protobuf.validator_pb2 import Message
from xo_devnet.context import TxnContext
from xo_devnet.context_requests import answer_context_request

GAME = "5b7349" + "0" * 64
ELSEWHERE = "5b7349" + "1" * 64
BLOCK_INFO = "00b10c" + "0" * 64


def request(message_type: int, content: object) -> Message:
    return Message(message_type=message_type, content=content.SerializeToString(), correlation_id="c")


def read(address: str) -> Message:
    return request(Message.TP_STATE_GET_REQUEST, TpStateGetRequest(context_id="attempt-1", addresses=[address]))


def write(address: str) -> Message:
    entry = TpStateEntry(address=address, data=b"x")
    return request(Message.TP_STATE_SET_REQUEST, TpStateSetRequest(context_id="attempt-1", entries=[entry]))


def contexts() -> dict[str, TxnContext]:
    context = TxnContext([GAME], [GAME, "00b10c"], lambda _address: None)  # a processor that claims BlockInfo's
    context.restrict_writes(["5b7349", "00b10c"], "xo", "1.0")
    return {"attempt-1": context}


def status_of(answer: tuple[int, bytes] | None, response_type: type) -> int:
    assert answer is not None
    return response_type.FromString(answer[1]).status


def test_a_read_outside_the_inputs_is_refused_and_its_repeats_are_one_line_and_a_count(caplog):
    caplog.set_level(logging.INFO, logger="xo_devnet.context_requests")
    limiter = LogLimiter()
    known = contexts()
    for _ in range(50):
        answer = answer_context_request(known, read(ELSEWHERE), limiter)
        assert status_of(answer, TpStateGetResponse) == TpStateGetResponse.AUTHORIZATION_ERROR
    lines = [record.getMessage() for record in caplog.records]
    assert lines == [f"refused a state read request: cannot read {ELSEWHERE}: not under the transaction's inputs"]
    limiter.flush()
    assert caplog.records[-1].getMessage().endswith("(49 more like it in the last 10 s)")


def test_each_rule_that_refuses_is_a_line_of_its_own(caplog):
    caplog.set_level(logging.INFO, logger="xo_devnet.context_requests")
    limiter = LogLimiter()
    known = contexts()
    for message in (read(ELSEWHERE), write(ELSEWHERE), write(BLOCK_INFO), read(ELSEWHERE), write(BLOCK_INFO)):
        answer_context_request(known, message, limiter)
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 3, lines
    assert "not under the transaction's inputs" in lines[0]
    assert "not under the transaction's outputs" in lines[1]
    assert "the namespace 00b10c belongs to the ledger (block_info); xo 1.0 may not write it" in lines[2]
