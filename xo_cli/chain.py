"""``xo chain blocks`` and ``xo chain transactions``: the chain as ``sawtooth block list`` shows it, in words.

Newest first. Each transaction is said by its own family's client library, which decodes the payload with
the family's codec (``xo take game1 5``, ``rps commit match round 1``, ``chips open 7eadee1d: ...``): those
readers are the only code of the other families ``xo`` uses (the pinned edges of
tests/packaging/test_boundaries.py). Signers are key names where the key directory has them, else their
first characters. So what a match cost on chain is counted without a script:
``xo chain transactions --family chips``.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Iterator
from typing import Final

from chips_client import chain_words as chips_words
from client_core.blocks import ChainTransaction, ListedBatch, ListedBlock
from client_core.caller import Caller
from client_core.chain_words import Namer, Words, block_info_words, block_time, namer, said_by, utc_time
from client_core.errors import InvalidInput
from client_core.keys import KeyNames, key_label
from client_core.rest import BLOCKS_PER_PAGE, RestClient
from client_core.tables import table
from rps_client import chain_words as rps_words
from xo_client import chain_words as xo_words
from xo_core.text import printable, quoted

FAMILY_WORDS: Final[dict[str, Words]] = {
    "xo": xo_words.words,
    "rps": rps_words.words,
    "chips": chips_words.words,
    "block_info": block_info_words,
}
SHOWN_ID: Final = 16
"""Hex digits of a block or transaction id in a table: as many as ``waiting for batch ...`` shows."""


def said(transaction: ChainTransaction, name: Namer) -> str:
    """What ``transaction`` did, by its family's reader; a family nobody here reads is named with its size."""
    return said_by(FAMILY_WORDS, transaction, name)


def blocks(args: argparse.Namespace) -> int:
    """The newest ``--limit`` blocks (0: all): number, time, id, batches, transactions, signer, families."""
    caller = Caller.of(args)
    names = caller.who.key_names()
    with caller.where.rest_client() as client:
        found = list(itertools.islice(client.listed_blocks(args.limit or BLOCKS_PER_PAGE), args.limit or None))
    if args.format == "json":
        print(json.dumps([block_json(block, names) for block in found], indent=2))
        return 0
    rows = [("NUM", "TIME", "BLOCK", "BATCHES", "TXNS", "SIGNER", "FAMILIES")]
    rows += [
        (
            str(block.block_num),
            time_cell(block),
            block.block_id[:SHOWN_ID] + "...",
            str(len(block.batches)),
            str(len(block.transactions)),
            key_label(block.signer, names, 16) if block.signer else "",
            families(block),
        )
        for block in found
    ]
    print(table(rows))
    return 0


def time_cell(block: ListedBlock) -> str:
    """The block's time in UTC, or ``-`` for a block without a BlockInfo (genesis)."""
    timestamp = block_time(block)
    return "-" if timestamp is None else utc_time(timestamp)


def families(block: ListedBlock) -> str:
    """``block_info, xo (2)``: the families of a block's transactions, each with its count when more than one."""
    counts: dict[str, int] = {}
    for transaction in block.transactions:
        counts[transaction.family_name] = counts.get(transaction.family_name, 0) + 1
    return ", ".join(printable(family) + (f" ({count})" if count > 1 else "") for family, count in counts.items())


def transactions(args: argparse.Namespace) -> int:
    """The newest ``--limit`` transactions (0: all), of ``--family`` only when given, each in words."""
    caller = Caller.of(args)
    names = caller.who.key_names()
    name = namer(names)
    # N blocks hold N transactions or more (BlockInfo opens each): a page of N is enough, and more pages follow if not.
    page = args.limit if args.limit and args.family is None else BLOCKS_PER_PAGE
    with caller.where.rest_client() as client:
        if args.family is not None and args.family not in FAMILY_WORDS:
            check_family(client, args.family)
        listed = newest_transactions(client.listed_blocks(page), args.family)
        found = list(itertools.islice(listed, args.limit or None))
    if args.format == "json":
        print(json.dumps([transaction_json(*entry, names) for entry in found], indent=2))
        return 0
    rows = [("BLOCK", "TRANSACTION", "SIGNER", "WHAT")]
    rows += [
        (
            str(block.block_num),
            transaction.transaction_id[:SHOWN_ID] + "...",
            key_label(transaction.signer, names, 16),
            said(transaction, name),
        )
        for block, _, transaction in found
    ]
    print(table(rows) if found else "No transactions" + (f" of {printable(args.family)}" if args.family else ""))
    return 0


def check_family(client: RestClient, family: str) -> None:
    """Refuse ``--family F`` when no family F exists: not one ``xo`` reads, and no transaction of the chain is of it.

    A mistyped family (``chip``) would otherwise list nothing and look like a chain with no such transactions; the
    refusal names the families there are and the likely one. The chain is read whole, once, only for a family
    ``xo`` has no words for (one a processor you connected yourself runs).
    """
    seen = {transaction.family_name for block in client.listed_blocks() for transaction in block.transactions}
    if family in seen:
        return
    import difflib  # noqa: PLC0415 - only a family that does not exist needs it

    known = sorted(seen | set(FAMILY_WORDS))
    close = difflib.get_close_matches(family, known, n=1)
    hint = f"; did you mean {quoted(close[0], 40)}?" if close else ""
    shown = ", ".join(printable(name) for name in known)
    raise InvalidInput(f"there is no transaction family {quoted(family, 40)} (families: {shown}){hint}")


def newest_transactions(
    listed: Iterator[ListedBlock], family: str | None
) -> Iterator[tuple[ListedBlock, ListedBatch, ChainTransaction]]:
    """Every transaction from the newest back (last in a block first), of ``family`` only when given."""
    for block in listed:
        for batch in reversed(block.batches):
            for transaction in reversed(batch.transactions):
                if family is None or transaction.family_name == family:
                    yield block, batch, transaction


def transaction_json(
    block: ListedBlock, batch: ListedBatch, transaction: ChainTransaction, names: KeyNames
) -> dict[str, object]:
    """For scripts: where the transaction is, who signed it, its family, and what it did in words."""
    return {
        "block_num": block.block_num,
        "block_id": block.block_id,
        "batch_id": batch.batch_id,
        "transaction_id": transaction.transaction_id,
        "family": transaction.family_name,
        "version": transaction.family_version,
        "signer": transaction.signer,
        "signer_name": names.name(transaction.signer),
        "words": said(transaction, namer(names)),
    }


def block_json(block: ListedBlock, names: KeyNames) -> dict[str, object]:
    """For scripts: the block, its time, signer and state root, and its batches with their transactions in words."""
    timestamp = block_time(block)
    return {
        "block_num": block.block_num,
        "block_id": block.block_id,
        "previous_block_id": block.previous_block_id,
        "timestamp": timestamp,
        "time": None if timestamp is None else utc_time(timestamp),
        "state_root": block.state_root,
        "signer": block.signer,
        "signer_name": names.name(block.signer),
        "batches": [
            {
                "batch_id": batch.batch_id,
                "signer": batch.signer,
                "transactions": [
                    {
                        key: value
                        for key, value in transaction_json(block, batch, transaction, names).items()
                        if key not in ("block_num", "block_id", "batch_id")
                    }
                    for transaction in batch.transactions
                ],
            }
            for batch in block.batches
        ],
    }
