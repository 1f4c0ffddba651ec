"""Walking the chain and the state for the list routes, in Sawtooth's order, one page at a time.

Sawtooth lists blocks newest first, and batches and transactions block by block from
the head down, in block order within a block; ``reverse`` turns the whole list around.
Each walk starts at the page's ``start`` and reads only what the page needs, so a
long chain costs nothing to page through.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from xo_core.protobuf.batch_pb2 import Batch
from xo_core.protobuf.block_pb2 import Block
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_devnet.ledger import Ledger
from xo_devnet.rest.errors import ApiError
from xo_devnet.rest.paging import Page, PagingControls, take_page
from xo_devnet.rest.queries import resource_id
from xo_devnet.rest.rendering import block_header

Record = TypeVar("Record", Batch, Transaction)
Identified = TypeVar("Identified", Block, Batch, Transaction)
Keyed = TypeVar("Keyed")

_STATE_READ_CHUNK = 1000


def resolve_head(ledger: Ledger, head_id: str | None, unknown: int = 50) -> tuple[Block, int]:
    """The block a request reads from, and its number: ``head`` if given (404 ``unknown`` if no block has that id),
    else the chain head."""
    if head_id is None:
        block = ledger.chain_head()
    else:
        block = ledger.block_by_id(resource_id(head_id))
        if block is None:
            raise ApiError(unknown)
    return block, block_header(block.header).block_num


def block_marker(block_num: int) -> str:
    """A block's paging marker, ``0x`` and 16 hex digits, as Sawtooth writes it."""
    return f"0x{block_num:016x}"


def page_blocks(ledger: Ledger, head_num: int, controls: PagingControls) -> Page[Block]:
    """Blocks from the head down (or from genesis up when reversed), starting at ``start``."""
    first = None if controls.start is None else _parse_marker(controls.start, head_num)
    numbers = _block_numbers(first, head_num, controls.reverse)
    return take_page(((block_marker(n), _block(ledger, n)) for n in numbers), controls.page_size)


def filtered_blocks(ledger: Ledger, block_ids: list[str], head_num: int) -> list[Block]:
    """The named blocks that exist at or below the head, in the order named; ``page_filtered`` pages them."""
    blocks = (ledger.block_by_id(block_id) for block_id in block_ids)
    return [block for block in blocks if block is not None and block_header(block.header).block_num <= head_num]


def page_batches(ledger: Ledger, head_num: int, controls: PagingControls) -> Page[Batch]:
    return _page_records(ledger, head_num, controls, lambda block: block.batches, ledger.block_id_of_batch)


def page_transactions(ledger: Ledger, head_num: int, controls: PagingControls) -> Page[Transaction]:
    return _page_records(
        ledger,
        head_num,
        controls,
        lambda block: [transaction for batch in block.batches for transaction in batch.transactions],
        ledger.block_id_of_transaction,
    )


def page_filtered(records: list[Identified], controls: PagingControls) -> Page[Identified]:
    """A page of the blocks, batches or transactions an ``id`` filter picked, in the order named (reversed on
    request); ``start`` and ``next_position`` are ids here, since the picked items need not be consecutive."""
    ordered = list(reversed(records)) if controls.reverse else records
    keyed = [(record.header_signature, record) for record in ordered]
    return take_page(_from_start(iter(keyed), controls.start), controls.page_size)


def committed_at_or_below(
    ledger: Ledger, records: Iterable[Record | None], block_of: Callable[[str], str | None], head_num: int
) -> list[Record]:
    """The records found (not None) whose block is at or below the head the request reads from."""
    kept = []
    for record in records:
        if record is None:
            continue
        block_id = block_of(record.header_signature)
        block = ledger.block_by_id(block_id) if block_id is not None else None
        if block is not None and block_header(block.header).block_num <= head_num:
            kept.append(record)
    return kept


def page_state(ledger: Ledger, prefix: str, state_root: str, controls: PagingControls) -> Page[tuple[str, bytes]]:
    """State entries under ``prefix`` in address order (reversed on request), starting at ``start``."""
    if controls.start is not None and (
        not controls.start.startswith(prefix) or ledger.state_get(controls.start, state_root) is None
    ):
        raise ApiError(54)
    if controls.reverse:
        entries = reversed(list(_all_state(ledger, prefix, state_root)))
        keyed = ((address, (address, value)) for address, value in entries)
        return take_page(_from_start(keyed, controls.start), controls.page_size)
    entries, next_address = ledger.state_list(prefix, state_root, controls.start, controls.page_size)
    start = entries[0][0] if entries else None
    return Page(list(entries), start, next_address)


def _page_records(
    ledger: Ledger,
    head_num: int,
    controls: PagingControls,
    records_of: Callable[[Block], Iterable[Record]],
    block_of: Callable[[str], str | None],
) -> Page[Record]:
    first = None if controls.start is None else _block_num_of(ledger, block_of(controls.start), head_num)
    numbers = _block_numbers(first, head_num, controls.reverse)

    def walk() -> Iterator[tuple[str, Record]]:
        for number in numbers:
            records = list(records_of(_block(ledger, number)))
            for record in reversed(records) if controls.reverse else records:
                yield record.header_signature, record

    return take_page(_from_start(walk(), controls.start), controls.page_size)


def _from_start(keyed: Iterator[tuple[str, Keyed]], start: str | None) -> Iterator[tuple[str, Keyed]]:
    """The items from the one keyed ``start`` on; 400/54 if there is none."""
    if start is None:
        yield from keyed
        return
    for key, item in keyed:
        if key == start:
            yield key, item
            yield from keyed
            return
    raise ApiError(54)


def _all_state(ledger: Ledger, prefix: str, state_root: str) -> Iterator[tuple[str, bytes]]:
    start: str | None = None
    while True:
        entries, start = ledger.state_list(prefix, state_root, start, _STATE_READ_CHUNK)
        yield from entries
        if start is None:
            return


def _block_numbers(first: int | None, head_num: int, reverse: bool) -> range:
    if reverse:
        return range(0 if first is None else first, head_num + 1)
    return range(head_num if first is None else first, -1, -1)


def _block_num_of(ledger: Ledger, block_id: str | None, head_num: int) -> int:
    """The number of the block holding a ``start`` record; 400/54 unless it is committed at or below the head."""
    block = ledger.block_by_id(block_id) if block_id is not None else None
    number = block_header(block.header).block_num if block is not None else None
    if number is None or number > head_num:
        raise ApiError(54)
    return number


def _parse_marker(marker: str, head_num: int) -> int:
    try:
        number = int(marker, 16)
    except ValueError:
        raise ApiError(54) from None
    if not 0 <= number <= head_num:
        raise ApiError(54)
    return number


def _block(ledger: Ledger, block_num: int) -> Block:
    block = ledger.block_by_num(block_num)
    if block is None:
        raise LookupError(f"block {block_num} is missing below the chain head")
    return block
