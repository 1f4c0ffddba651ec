"""The validator side of the processor protocol, against well- and ill-behaved processors."""

import asyncio
import json

from tests.xo_devnet.fake_processor import OK, FakeProcessor, kv_handler
from tests.xo_devnet.harness import (
    NAMESPACE,
    address,
    batch_of,
    commit,
    connected,
    eventually,
    head_value,
    kv_batch,
    kv_txn,
    run,
    running_ledger,
)
from xo_core.protobuf import network_pb2, processor_pb2, state_context_pb2
from xo_core.protobuf.events_pb2 import Event
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_core.protobuf.transaction_receipt_pb2 import StateChange
from xo_core.protobuf.validator_pb2 import Message

A, B = address("a"), address("b")
FAST_LIVENESS = {"ping_interval": 0.1, "ping_timeout": 0.4}


def test_registration_is_acknowledged_listed_and_withdrawn():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger) as processor:
            assert ledger.processors() == [("kv", "1.0")]
            response = await processor.unregister()
            assert response.status == response.OK
            assert ledger.processors() == []

    run(scenario)


def test_a_registration_without_a_family_is_refused():
    async def scenario():
        async with running_ledger() as ledger:
            processor = FakeProcessor(ledger.component_endpoint, kv_handler, family="")
            try:
                response = await processor.start()
                assert response.status == processor_pb2.TpRegisterResponse.ERROR
                assert ledger.processors() == []
            finally:
                await processor.close()

    run(scenario)


def test_a_process_request_carries_the_transaction_and_a_fresh_context():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger) as processor:
            txns = [kv_txn(set={A: "1"}), kv_txn(set={B: "2"})]
            assert await commit(ledger, batch_of(txns[0]), batch_of(txns[1])) == ["COMMITTED", "COMMITTED"]
            by_signature = {request.signature: request for request in processor.requests}
            for txn in txns:
                request = by_signature[txn.header_signature]
                assert request.header == TransactionHeader.FromString(txn.header)
                assert request.payload == txn.payload
            assert len({request.context_id for request in processor.requests}) == 2

    run(scenario)


def test_a_raw_header_processor_gets_the_header_bytes():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger, raw_header=True) as processor:
            txn = kv_txn(set={A: "1"})
            assert await commit(ledger, batch_of(txn)) == ["COMMITTED"]
            assert processor.requests[0].header_bytes == txn.header

    run(scenario)


async def touch_outside(processor, request):
    """Reads, writes and deletes outside the transaction's inputs and outputs."""
    context = request.context_id
    other = address("elsewhere")
    results = [
        (await processor.get(context, [other])).status,
        (await processor.set(context, {other: b"x"})).status,
        (await processor.delete(context, [other])).status,
        (await processor.get(context, ["5B" * 35])).status,
    ]
    message = json.dumps(results)
    return processor_pb2.TpProcessResponse(status=processor_pb2.TpProcessResponse.INVALID_TRANSACTION, message=message)


def test_addresses_outside_inputs_and_outputs_get_authorization_error():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger, touch_outside):
            batch = kv_batch(set={A: "1"})
            ledger.submit([batch])
            [status] = await ledger.wait_for_batches([batch.header_signature], 20)
            denied = state_context_pb2.TpStateGetResponse.AUTHORIZATION_ERROR
            assert status.status == "INVALID"
            assert json.loads(status.invalid_transactions[0].message) == [denied] * 4

    run(scenario)


XO_GAME = "5b7349" + "ab" * 32


def test_writes_outside_the_namespaces_a_processor_registered_get_authorization_error():
    """A kv processor (namespace 00) may read xo state its transaction lists, but not write or delete it."""
    answers: list[list[int]] = []

    async def reach_into_xo_state(processor, request):
        context = request.context_id
        answers.append([
            (await processor.get(context, [XO_GAME])).status,
            (await processor.set(context, {XO_GAME: b"garbage"})).status,
            (await processor.delete(context, [XO_GAME])).status,
            (await processor.set(context, {A: b"own"})).status,
        ])
        return processor_pb2.TpProcessResponse(status=OK)

    async def scenario():
        async with running_ledger() as ledger, connected(ledger, reach_into_xo_state):
            batch = batch_of(kv_txn(inputs=[XO_GAME, A], outputs=[XO_GAME, A]))
            assert await commit(ledger, batch) == ["COMMITTED"]
            ok, denied = (
                state_context_pb2.TpStateGetResponse.OK,
                state_context_pb2.TpStateGetResponse.AUTHORIZATION_ERROR,
            )
            assert answers == [[ok, denied, denied, ok]]
            assert head_value(ledger, XO_GAME) is None
            assert head_value(ledger, A) == b"own"

    run(scenario)


def test_an_invalid_transaction_invalidates_its_batch_with_message_and_extended_data():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            batch = kv_batch(invalid="no such move")
            ledger.submit([batch])
            [status] = await ledger.wait_for_batches([batch.header_signature], 20)
            assert status.status == "INVALID"
            [info] = status.invalid_transactions
            assert (info.id, info.message, info.extended_data) == (
                batch.transactions[0].header_signature,
                "no such move",
                b"\x01\x02",
            )

    run(scenario)


def test_internal_errors_are_retried_then_the_batch_is_invalid():
    async def scenario():
        async with running_ledger(max_attempts=3, retry_delay=0.01) as ledger, connected(ledger) as processor:
            batch = kv_batch(internal="database on fire")
            ledger.submit([batch])
            [status] = await ledger.wait_for_batches([batch.header_signature], 20)
            assert status.status == "INVALID"
            message = status.invalid_transactions[0].message
            assert "transaction processor failed" in message
            assert "database on fire" in message
            assert len(processor.requests) == 3

    run(scenario)


def test_a_transient_internal_error_is_retried_until_it_succeeds():
    failures = {"left": 2}

    async def flaky(processor, request):
        if failures["left"]:
            failures["left"] -= 1
            return processor_pb2.TpProcessResponse(status=processor_pb2.TpProcessResponse.INTERNAL_ERROR)
        return await kv_handler(processor, request)

    async def scenario():
        async with running_ledger(retry_delay=0.01) as ledger, connected(ledger, flaky) as processor:
            assert await commit(ledger, kv_batch(set={A: "done"})) == ["COMMITTED"]
            assert len(processor.requests) == 3
            assert head_value(ledger, A) == b"done"

    run(scenario)


def test_work_of_a_processor_that_dies_mid_request_is_resent_to_another():
    async def scenario():
        async with running_ledger(**FAST_LIVENESS) as ledger:

            async def hang(processor, request):
                return None

            doomed = FakeProcessor(ledger.component_endpoint, hang)
            await doomed.start()
            batch = kv_batch(set={A: "survived"})
            ledger.submit([batch])
            await eventually(lambda: doomed.requests)
            await doomed.close()
            async with connected(ledger) as healthy:
                [status] = await ledger.wait_for_batches([batch.header_signature], 20)
                assert status.status == "COMMITTED"
                assert [r.signature for r in healthy.requests] == [batch.transactions[0].header_signature]
                assert head_value(ledger, A) == b"survived"
                assert ledger.processors() == [("kv", "1.0")]

    run(scenario)


def test_a_processor_that_never_answers_fails_the_batch_after_bounded_attempts():
    async def silent(processor, request):
        return None

    async def scenario():
        config = {"process_timeout": 0.15, "max_attempts": 2, "retry_delay": 0.01}  # nothing ever answers
        async with running_ledger(**config) as ledger, connected(ledger, silent) as processor:
            batch = kv_batch(set={A: "1"})
            ledger.submit([batch])
            [status] = await ledger.wait_for_batches([batch.header_signature], 20)
            assert status.status == "INVALID"
            assert "no answer within 0.15 s" in status.invalid_transactions[0].message
            assert len(processor.requests) == 2

    run(scenario)


def test_a_processor_that_ignores_pings_is_dropped_and_its_work_waits_for_another():
    async def silent(processor, request):
        return None

    async def scenario():
        async with running_ledger(**FAST_LIVENESS) as ledger:
            async with connected(ledger, silent, answer_pings=False) as deaf:
                batch = kv_batch(set={A: "1"})
                ledger.submit([batch])
                await eventually(lambda: deaf.requests and not ledger.processors())
                assert ledger.batch_statuses([batch.header_signature])[0].status == "PENDING"
            async with connected(ledger):
                [status] = await ledger.wait_for_batches([batch.header_signature], 20)
                assert status.status == "COMMITTED"

    run(scenario)


def test_processors_are_pinged_and_pings_are_answered():
    async def scenario():
        async with running_ledger(**FAST_LIVENESS) as ledger, connected(ledger) as processor:
            await eventually(lambda: processor.pings >= 2)
            reply = await processor.ask(Message.PING_REQUEST, processor_pb2.TpUnregisterRequest())
            assert reply.message_type == Message.PING_RESPONSE
            assert ledger.processors() == [("kv", "1.0")]

    run(scenario)


def test_a_batch_waits_for_a_processor_of_its_family():
    async def scenario():
        async with running_ledger() as ledger:
            batch = kv_batch(set={A: "late"})
            ledger.submit([batch])
            [status] = await ledger.wait_for_batches([batch.header_signature], 0.3)
            assert status.status == "PENDING"
            async with connected(ledger):
                assert (await ledger.wait_for_batches([batch.header_signature], 20))[0].status == "COMMITTED"

    run(scenario)


def test_max_occupancy_is_honoured_and_processors_share_the_work():
    async def slow(processor, request):
        await asyncio.sleep(0.02)
        return await kv_handler(processor, request)

    async def scenario():
        async with (
            running_ledger() as ledger,
            connected(ledger, slow, max_occupancy=2) as first,
            connected(ledger, slow, max_occupancy=3) as second,
        ):
            batches = [kv_batch(set={address(n): "1"}) for n in range(30)]
            assert set(await commit(ledger, *batches)) == {"COMMITTED"}
            assert first.most_busy == 2
            assert second.most_busy == 3
            assert len(first.requests) + len(second.requests) == 30

    run(scenario)


def test_events_and_receipt_data_end_up_in_the_receipt():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            batch = kv_batch(set={A: "1"}, delete=[B], event="kv/changed", data="note")
            assert await commit(ledger, batch) == ["COMMITTED"]
            receipt = ledger.receipt(batch.transactions[0].header_signature)
            changes = [(change.address, change.type, change.value) for change in receipt.state_changes]
            assert changes == [(A, StateChange.SET, b"1"), (B, StateChange.DELETE, b"")]
            assert [event.event_type for event in receipt.events] == ["kv/changed"]
            assert list(receipt.data) == [b"note"]

    run(scenario)


def test_reads_of_unset_addresses_answer_empty_data():
    answers = []

    async def probe(processor, request):
        answers.append(await processor.get(request.context_id, [A]))
        return processor_pb2.TpProcessResponse(status=OK)

    async def scenario():
        async with running_ledger() as ledger, connected(ledger, probe):
            assert await commit(ledger, kv_batch(require=A)) == ["COMMITTED"]
        [answer] = answers
        assert answer.status == answer.OK
        assert [(entry.address, entry.data) for entry in answer.entries] == [(A, b"")]

    run(scenario)


def test_requests_in_an_unknown_context_are_answered_as_a_sawtooth_validator_answers_them():
    """Sawtooth's context manager finds nothing to read and drops writes (OK); events and data are an ERROR."""
    answers = {}

    async def stray(processor, request):
        gone = "no-such-context"
        answers["get"] = await processor.get(gone, [A])
        answers["set"] = await processor.set(gone, {A: b"x"})
        answers["delete"] = await processor.delete(gone, [A])
        answers["event"] = await processor.event(gone, Event(event_type="kv/lost"))
        answers["data"] = await processor.data(gone, b"lost")
        return await kv_handler(processor, request)

    async def scenario():
        async with running_ledger() as ledger, connected(ledger, stray):
            batch = kv_batch(set={B: "own"})
            assert await commit(ledger, batch) == ["COMMITTED"]
            assert head_value(ledger, A) is None
            receipt = ledger.receipt(batch.transactions[0].header_signature)
            assert (list(receipt.events), list(receipt.data)) == ([], [])
        get, set_, delete = answers["get"], answers["set"], answers["delete"]
        assert (get.status, list(get.entries)) == (get.OK, [])
        assert (set_.status, list(set_.addresses)) == (set_.OK, [])
        assert (delete.status, list(delete.addresses)) == (delete.OK, [A])
        assert answers["event"].status == answers["event"].ERROR
        assert answers["data"].status == answers["data"].ERROR

    run(scenario)


def test_a_state_write_sent_after_the_answer_is_not_committed():
    """The OK and a late TP_STATE_SET arrive in one burst: the context is closed before the OK is acted on."""
    late_answers = []

    class Sneaky(FakeProcessor):
        async def _process(self, message):
            request = processor_pb2.TpProcessRequest.FromString(message.content)
            ok = Message(
                message_type=Message.TP_PROCESS_RESPONSE,
                correlation_id=message.correlation_id,
                content=processor_pb2.TpProcessResponse(status=OK).SerializeToString(),
            )
            late = state_context_pb2.TpStateSetRequest(
                context_id=request.context_id,
                entries=[state_context_pb2.TpStateEntry(address=A, data=b"written after OK")],
            )
            await self._socket.send(ok.SerializeToString())
            late_answers.append(await self.ask(Message.TP_STATE_SET_REQUEST, late))

    async def scenario():
        async with running_ledger() as ledger:
            processor = Sneaky(ledger.component_endpoint, kv_handler)
            try:
                await processor.start()
                for n in range(5):
                    assert await commit(ledger, kv_batch(set={A: "declared"}, n=n)) == ["COMMITTED"]
                    assert head_value(ledger, A) is None
                    await eventually(lambda count=n + 1: len(late_answers) == count)
            finally:
                await processor.close()
        for answer in late_answers:
            written = state_context_pb2.TpStateSetResponse.FromString(answer.content)
            assert list(written.addresses) == []

    run(scenario)


def test_an_internal_error_is_retried_on_another_processor():
    async def broken(processor, request):
        return processor_pb2.TpProcessResponse(status=processor_pb2.TpProcessResponse.INTERNAL_ERROR, message="broken")

    async def scenario():
        async with (
            running_ledger(max_attempts=2, retry_delay=0.01) as ledger,
            connected(ledger, broken) as first,
            connected(ledger) as second,
        ):
            batch = kv_batch(set={A: "done"})
            assert await commit(ledger, batch) == ["COMMITTED"]
            assert [len(first.requests), len(second.requests)] == [1, 1]
            assert first.requests[0].signature == second.requests[0].signature == batch.transactions[0].header_signature
            assert first.requests[0].context_id != second.requests[0].context_id

    run(scenario)


def test_work_in_flight_when_a_processor_unregisters_is_resent_without_counting_as_a_failure():
    async def leave(processor, request):
        await processor.unregister()

    async def scenario():
        async with running_ledger(max_attempts=1) as ledger:
            async with connected(ledger, leave) as leaving:
                batch = kv_batch(set={A: "finished elsewhere"})
                ledger.submit([batch])
                await eventually(lambda: leaving.requests and not ledger.processors())
                assert ledger.batch_statuses([batch.header_signature])[0].status == "PENDING"
            async with connected(ledger) as staying:
                [status] = await ledger.wait_for_batches([batch.header_signature], 20)
                assert status.status == "COMMITTED"
                assert [r.signature for r in staying.requests] == [batch.transactions[0].header_signature]
                assert head_value(ledger, A) == b"finished elsewhere"

    run(scenario)


def test_a_dropped_processor_that_speaks_again_gets_its_registrations_back():
    async def scenario():
        async with (
            running_ledger(**FAST_LIVENESS) as ledger,
            connected(ledger, answer_pings=False, max_occupancy=3) as deaf,
        ):
            await eventually(lambda: not ledger.processors())
            deaf.answer_pings = True
            reply = await deaf.ask(Message.PING_REQUEST, network_pb2.PingRequest())
            assert reply.message_type == Message.PING_RESPONSE
            assert ledger.processors() == [("kv", "1.0")]
            batches = [kv_batch(set={address(n): "back"}, sleep=0.05) for n in range(6)]
            assert set(await commit(ledger, *batches)) == {"COMMITTED"}
            assert deaf.most_busy == 3

    run(scenario)


def test_a_processor_registering_again_replaces_its_registration():
    async def slow(processor, request):
        await asyncio.sleep(0.05)
        return await kv_handler(processor, request)

    async def scenario():
        async with running_ledger() as ledger, connected(ledger, slow, max_occupancy=1) as processor:
            again = processor_pb2.TpRegisterRequest(family="kv", version="1.0", namespaces=[NAMESPACE], max_occupancy=3)
            reply = await processor.ask(Message.TP_REGISTER_REQUEST, again)
            registered = processor_pb2.TpRegisterResponse.FromString(reply.content)
            assert registered.status == registered.OK
            assert ledger.processors() == [("kv", "1.0")]
            batches = [kv_batch(set={address(n): "1"}) for n in range(9)]
            assert set(await commit(ledger, *batches)) == {"COMMITTED"}
            assert processor.most_busy == 3
            assert len(processor.requests) == 9

    run(scenario)
