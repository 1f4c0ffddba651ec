"""GET /blocks, /batches, /transactions (lists and single items) and /receipts."""

from __future__ import annotations

from aiohttp import web

from xo_core.protobuf.transaction_receipt_pb2 import TransactionReceipt
from xo_devnet.rest.errors import ApiError
from xo_devnet.rest.keys import LEDGER
from xo_devnet.rest.listing import (
    committed_at_or_below,
    filtered_blocks,
    page_batches,
    page_blocks,
    page_filtered,
    page_transactions,
    resolve_head,
)
from xo_devnet.rest.paging import paged_envelope, paging_controls
from xo_devnet.rest.queries import id_query, json_id_list, optional_id_filter, resource_id
from xo_devnet.rest.rendering import render_batch, render_block, render_receipt, render_transaction
from xo_devnet.rest.responses import json_response
from xo_devnet.rest.urls import build_url


async def list_blocks(request: web.Request) -> web.Response:
    ledger = request.app[LEDGER]
    controls = paging_controls(request.query, sort_key="block_num")
    head, head_num = resolve_head(ledger, request.query.get("head"))
    ids = optional_id_filter(request.query)
    if ids is None:
        page = page_blocks(ledger, head_num, controls)
    else:
        page = page_filtered(filtered_blocks(ledger, ids, head_num), controls)
    data = [render_block(block) for block in page.items]
    return json_response(paged_envelope(request, controls, page, data, head.header_signature))


async def get_block(request: web.Request) -> web.Response:
    block = request.app[LEDGER].block_by_id(resource_id(request.match_info["block_id"]))
    if block is None:
        raise ApiError(70)
    return json_response({"data": render_block(block), "link": build_url(request)})


async def list_batches(request: web.Request) -> web.Response:
    ledger = request.app[LEDGER]
    controls = paging_controls(request.query, sort_key="default")
    head, head_num = resolve_head(ledger, request.query.get("head"))
    ids = optional_id_filter(request.query)
    if ids is None:
        page = page_batches(ledger, head_num, controls)
    else:
        found = (ledger.batch_by_id(batch_id) for batch_id in ids)
        page = page_filtered(committed_at_or_below(ledger, found, ledger.block_id_of_batch, head_num), controls)
    data = [render_batch(batch) for batch in page.items]
    return json_response(paged_envelope(request, controls, page, data, head.header_signature))


async def get_batch(request: web.Request) -> web.Response:
    batch = request.app[LEDGER].batch_by_id(resource_id(request.match_info["batch_id"]))
    if batch is None:
        raise ApiError(71)
    return json_response({"data": render_batch(batch), "link": build_url(request)})


async def list_transactions(request: web.Request) -> web.Response:
    ledger = request.app[LEDGER]
    controls = paging_controls(request.query, sort_key="default")
    head, head_num = resolve_head(ledger, request.query.get("head"))
    ids = optional_id_filter(request.query)
    if ids is None:
        page = page_transactions(ledger, head_num, controls)
    else:
        found = (ledger.transaction_by_id(txn_id) for txn_id in ids)
        page = page_filtered(committed_at_or_below(ledger, found, ledger.block_id_of_transaction, head_num), controls)
    data = [render_transaction(transaction) for transaction in page.items]
    return json_response(paged_envelope(request, controls, page, data, head.header_signature))


async def get_transaction(request: web.Request) -> web.Response:
    transaction = request.app[LEDGER].transaction_by_id(resource_id(request.match_info["transaction_id"]))
    if transaction is None:
        raise ApiError(72)
    return json_response({"data": render_transaction(transaction), "link": build_url(request)})


async def get_receipts(request: web.Request) -> web.Response:
    receipts = _receipts(request, id_query(request.query, missing_code=83))
    return json_response({"data": [render_receipt(receipt) for receipt in receipts], "link": build_url(request)})


async def post_receipts(request: web.Request) -> web.Response:
    receipts = _receipts(request, await json_id_list(request, wrong_type_code=81, bad_body_code=82))
    return json_response({"data": [render_receipt(receipt) for receipt in receipts]})


def _receipts(request: web.Request, txn_ids: list[str]) -> list[TransactionReceipt]:
    """Every receipt asked for, or 404/80 naming the first id that has none."""
    receipts = []
    for txn_id in txn_ids:
        receipt = request.app[LEDGER].receipt(txn_id)
        if receipt is None:
            raise ApiError(80, txn_id)
        receipts.append(receipt)
    return receipts
