"""POST /batches and /batch_statuses: taking batches in and telling clients what became of them.

A BatchList is decoded, checked as a validator would check it and handed to the
ledger whole or not at all. Only once the ledger has them (with a data dir: recorded
in it) does the client get its 202: a 202 means the ledger holds the batches and will
decide them, even across a crash, never that they might be lost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from aiohttp import web
from google.protobuf.message import DecodeError

from xo_core.protobuf.batch_pb2 import Batch, BatchList
from xo_devnet.ledger import BatchStatus, DuplicateBatch, Ledger, QueueFull, UnacceptedFamily
from xo_devnet.rest.errors import ApiError
from xo_devnet.rest.keys import ACCEPTED, LEDGER, SUBMISSIONS
from xo_devnet.rest.queries import bounded_body, declared_media_type, id_query, json_id_list, wait_seconds
from xo_devnet.rest.rendering import render_batch_status
from xo_devnet.rest.responses import json_response
from xo_devnet.rest.urls import build_url
from xo_devnet.validation import MAX_BODY_BYTES, InvalidBatch, validate_batches

_INLINE_VALIDATION_TRANSACTIONS = 64
"""Above this many transactions, signatures are checked off the event loop so other requests keep flowing."""


async def post_batches(request: web.Request) -> web.Response:
    """Queue a BatchList: 202 once the ledger holds it, else the Sawtooth error saying why not.

    The Content-Type must name application/octet-stream, as Sawtooth requires; unlike
    Sawtooth's exact string comparison, case and parameters are ignored (RFC 9110).
    Every answer is counted for /metrics: the batches taken in, or the error code.
    """
    submissions = request.app[SUBMISSIONS]
    try:
        batches = await _take_in(request)
    except ApiError as error:
        submissions.refusal(error.kind.code)
        raise
    submissions.received.inc(len(batches))
    link = build_url(request, path="/batch_statuses", id=",".join(batch.header_signature for batch in batches))
    return json_response({"link": link}, status=202)


async def _take_in(request: web.Request) -> list[Batch]:
    """Decode, check and queue the body's batches; an ApiError says why not."""
    if declared_media_type(request) != "application/octet-stream":
        raise ApiError(42)
    batches = _decode(await _read_body(request))
    await _validate(batches)
    try:
        await request.app[LEDGER].submit(batches)
    except QueueFull as error:
        raise ApiError(31, message=f"The ledger cannot queue these batches now: {error}.") from None
    except (DuplicateBatch, UnacceptedFamily) as error:
        raise ApiError(30, str(error)) from None
    request.app[ACCEPTED].add(batch.header_signature for batch in batches)
    return batches


async def get_batch_statuses(request: web.Request) -> web.Response:
    ids = id_query(request.query, missing_code=66)
    statuses = await _statuses(request.app[LEDGER], ids, wait_seconds(request.query))
    return json_response({"data": [render_batch_status(status) for status in statuses], "link": build_url(request)})


async def post_batch_statuses(request: web.Request) -> web.Response:
    ids = await json_id_list(request, wrong_type_code=43, bad_body_code=46)
    statuses = await _statuses(request.app[LEDGER], ids, wait_seconds(request.query))
    return json_response({"data": [render_batch_status(status) for status in statuses]})


async def _read_body(request: web.Request) -> bytes:
    body = await bounded_body(request, 30, f"the body is larger than the {MAX_BODY_BYTES} bytes a BatchList may take")
    if not body:
        raise ApiError(34)
    return body


def _decode(body: bytes) -> list[Batch]:
    batch_list = BatchList()
    try:
        batch_list.ParseFromString(body)
    except DecodeError:
        raise ApiError(35) from None
    if not batch_list.batches:
        raise ApiError(34)
    return list(batch_list.batches)


async def _validate(batches: list[Batch]) -> None:
    try:
        if sum(len(batch.transactions) for batch in batches) <= _INLINE_VALIDATION_TRANSACTIONS:
            validate_batches(batches)
        else:
            await asyncio.get_running_loop().run_in_executor(None, validate_batches, batches)
    except InvalidBatch as error:
        raise ApiError(30, str(error)) from None


async def _statuses(ledger: Ledger, ids: Sequence[str], wait: float | None) -> list[BatchStatus]:
    if wait is None:
        return ledger.batch_statuses(ids)
    return await ledger.wait_for_batches(ids, wait)
