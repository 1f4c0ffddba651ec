"""``xo chain block ID|NUM`` and ``xo chain transaction ID``: one block or one transaction, in words.

What ``sawtooth block show`` and ``sawtooth transaction show`` print, for people: a block's number, time, signer,
state root and its batches with each transaction said by its family; a transaction's family, what it did, who
signed it, the block and batch that hold it, and its outcome (the state it changed, from its receipt). An id may
be shortened as ``xo chain`` prints it (``a13a0bddd56a9a97...``): it is looked for from the newest block back,
as ``xo status`` looks for a shortened batch id. A block is found by number in one request.
"""

from __future__ import annotations

import argparse
import json

from client_core.answers import StateChange
from client_core.blocks import ListedBlock
from client_core.caller import Caller
from client_core.chain_lookup import Found, ShortId, find_block, find_transaction, outcome_words, transaction_json
from client_core.chain_words import block_time
from client_core.errors import InvalidInput
from client_core.keys import KeyNames, key_label
from client_core.tables import table
from xo_cli.chain import SHOWN_ID, block_json, namer, said, time_cell
from xo_core.text import counted, printable


def block(args: argparse.Namespace) -> int:
    """``xo chain block ID|NUM``: the block, then a row per transaction of each batch."""
    caller = Caller.of(args)
    text: str = args.block
    number = int(text) if text.isascii() and text.isdigit() else None
    short = None if number is not None else ShortId.parse(text, "block")
    names = caller.who.key_names()
    with caller.where.rest_client() as client:
        found = client.listed_block_at(number) if short is None else find_block(client, short)
    if found is None:
        raise InvalidInput(f"there is no block {number} on this chain yet (see 'xo chain blocks' for the newest)")
    print(json.dumps(block_json(found, names), indent=2) if args.format == "json" else block_card(found, names))
    return 0


def block_card(listed: ListedBlock, names: KeyNames) -> str:
    """The block's fields, one a line, then its transactions in a table, batch by batch."""
    name = namer(names)
    count = len(listed.transactions)
    lines = [
        f"BLOCK        : {listed.block_num}",
        f"ID           : {listed.block_id}",
        f"TIME         : {time_cell(listed)}" + ("" if block_time(listed) is not None else " (no BlockInfo: genesis)"),
        f"SIGNER       : {key_label(listed.signer, names) if listed.signer else '-'}",
        f"PREVIOUS     : {listed.previous_block_id}",
        f"STATE ROOT   : {printable(listed.state_root) or '-'}",
        f"BATCHES      : {len(listed.batches)}, holding {counted(count, 'transaction')}",
    ]
    if not count:
        return "\n".join(lines)
    rows = [("BATCH", "TRANSACTION", "SIGNER", "WHAT")]
    rows += [
        (
            batch.batch_id[:SHOWN_ID] + "...",
            transaction.transaction_id[:SHOWN_ID] + "...",
            key_label(transaction.signer, names, 16),
            said(transaction, name),
        )
        for batch in listed.batches
        for transaction in batch.transactions
    ]
    return "\n".join([*lines, "", table(rows)])


def transaction(args: argparse.Namespace) -> int:
    """``xo chain transaction ID``: what it did, who signed it, where it is, and the state it changed."""
    caller = Caller.of(args)
    short = ShortId.parse(args.transaction, "transaction")
    names = caller.who.key_names()
    with caller.where.rest_client() as client:
        found = find_transaction(client, short)
        changes = client.state_changes(found[2].transaction_id)
    if args.format == "json":
        print(json.dumps(transaction_json(found, changes, names, said(found[2], namer(names))), indent=2))
    else:
        print(transaction_card(found, changes, names))
    return 0


def transaction_card(found: Found, changes: list[StateChange], names: KeyNames) -> str:
    """The transaction's fields, one a line, then the addresses it set or deleted."""
    listed, batch, item = found
    lines = [
        f"TRANSACTION  : {item.transaction_id}",
        f"FAMILY       : {printable(item.family_name)} {printable(item.family_version)}",
        f"WHAT         : {said(item, namer(names))}",
        f"SIGNER       : {key_label(item.signer, names)}",
        f"BLOCK        : {listed.block_num} ({listed.block_id[:SHOWN_ID]}...), {time_cell(listed)}",
        f"BATCH        : {batch.batch_id}",
        f"OUTCOME      : {outcome_words(changes)}" + (":" if changes else ""),
    ]
    lines += [f"  {'deleted' if change.type == 'DELETE' else 'set'} {printable(change.address)}" for change in changes]
    return "\n".join(lines)


