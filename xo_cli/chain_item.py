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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from client_core import session
from client_core.answers import StateChange
from client_core.batch_prefix import ID_DIGITS, MIN_DIGITS, SHORTENED, UNIQUE_DIGITS
from client_core.blocks import ChainTransaction, ListedBatch, ListedBlock
from client_core.chain_words import block_time, utc_time
from client_core.errors import InvalidInput
from client_core.keys import KeyNames, key_label
from client_core.rest import RestClient
from client_core.tables import table
from xo_cli.chain import SHOWN_ID, block_json, namer, said, time_cell
from xo_core.text import counted, printable, quoted

Found = tuple[ListedBlock, ListedBatch, ChainTransaction]
T = TypeVar("T")


@dataclass(frozen=True)
class ShortId:
    """A block or transaction id as typed: whole, or shortened as the commands print it (its first digits, and its
    last ones after ``...``)."""

    prefix: str
    suffix: str
    text: str

    @classmethod
    def parse(cls, text: str, kind: str) -> ShortId:
        """``text`` as an id of a ``kind`` (block, transaction); :class:`InvalidInput` saying what one is if not."""
        match = SHORTENED.fullmatch(text)
        prefix, suffix = (match["prefix"].lower(), (match["suffix"] or "").lower()) if match else ("", "")
        if not prefix or not MIN_DIGITS <= len(prefix) + len(suffix) <= ID_DIGITS:
            raise InvalidInput(
                f"{quoted(text, 40)} is not a {kind} id: it is 128 hex characters, or its first {MIN_DIGITS} or "
                "more as 'xo chain' prints them (a13a0bddd56a9a97...)"
            )
        return cls(prefix, suffix, text)

    @property
    def whole(self) -> bool:
        return len(self.prefix) == ID_DIGITS

    def matches(self, full: str) -> bool:
        digits = len(self.prefix) + len(self.suffix)
        return len(full) >= digits and full.startswith(self.prefix) and full.endswith(self.suffix)

    def settled(self, found: list[object]) -> bool:
        """Whether a walk may stop: two matches are too many; with 16 digits or more the first is the one meant."""
        return len(found) > 1 or (bool(found) and len(self.prefix) + len(self.suffix) >= UNIQUE_DIGITS)


def block(args: argparse.Namespace) -> int:
    """``xo chain block ID|NUM``: the block, then a row per transaction of each batch."""
    text: str = args.block
    number = int(text) if text.isascii() and text.isdigit() else None
    short = None if number is not None else ShortId.parse(text, "block")
    names = session.key_names(args)
    with session.rest_client(args) as client:
        found = client.listed_block_at(number) if number is not None else find_block(client, short)
    if found is None:
        raise InvalidInput(f"there is no block {number} on this chain yet (see 'xo chain blocks' for the newest)")
    print(json.dumps(block_json(found, names), indent=2) if args.format == "json" else block_card(found, names))
    return 0


def find_block(client: RestClient, short: ShortId | None) -> ListedBlock:
    """The one block ``short`` names: one request for a whole id, else a walk from the newest block back."""
    assert short is not None
    matches: list[ListedBlock] = []
    if short.whole:
        found = client.listed_block_by_id(short.prefix)
        matches += [] if found is None else [found]
    else:
        for listed in client.listed_blocks():
            if short.matches(listed.block_id):
                matches.append(listed)
            if short.settled(matches):
                break
    return only(matches, short, "block", lambda listed: listed.block_id)


def only(matches: list[T], short: ShortId, kind: str, key: Callable[[T], str]) -> T:
    """The one match, or a clear refusal: none (the id is on no committed block), or several (more digits)."""
    shown = quoted(short.text, 40)
    if not matches:
        raise InvalidInput(f"no {kind} on this chain has the id {shown}")
    if len(matches) > 1:
        named = ", ".join(f"{key(match)[:UNIQUE_DIGITS]}..." for match in matches[:2])
        raise InvalidInput(f"{shown} names more than one {kind} ({named}): give more of its digits")
    return matches[0]


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
    short = ShortId.parse(args.transaction, "transaction")
    names = session.key_names(args)
    with session.rest_client(args) as client:
        found = find_transaction(client, short)
        changes = client.state_changes(found[2].transaction_id)
    if args.format == "json":
        print(json.dumps(transaction_json(found, changes, names), indent=2))
    else:
        print(transaction_card(found, changes, names))
    return 0


def find_transaction(client: RestClient, short: ShortId) -> Found:
    """The one committed transaction ``short`` names, with its block and batch (the REST API's ``/transactions/ID``
    does not say which block holds it, so the blocks are read from the newest back)."""
    matches: list[Found] = []
    for listed in client.listed_blocks():
        matches += [entry for entry in entries(listed) if short.matches(entry[2].transaction_id)]
        if short.settled(matches):
            break
    return only(matches, short, "committed transaction", lambda entry: entry[2].transaction_id)


def entries(listed: ListedBlock) -> Iterator[Found]:
    for batch in listed.batches:
        for item in batch.transactions:
            yield listed, batch, item


def outcome_words(changes: list[StateChange]) -> str:
    """What the transaction did to state, from its receipt: a committed transaction was valid, by Sawtooth's rules."""
    if not changes:
        return "committed (valid); it changed no state"
    return f"committed (valid); it changed {counted(len(changes), 'address', 'addresses')} of state:"


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
        f"OUTCOME      : {outcome_words(changes)}",
    ]
    lines += [f"  {'deleted' if change.type == 'DELETE' else 'set'} {printable(change.address)}" for change in changes]
    return "\n".join(lines)


def transaction_json(found: Found, changes: list[StateChange], names: KeyNames) -> dict[str, object]:
    """For scripts: where the transaction is, who signed it, what it did in words, and the state it changed."""
    listed, batch, item = found
    timestamp = block_time(listed)
    return {
        "transaction_id": item.transaction_id,
        "family": item.family_name,
        "version": item.family_version,
        "signer": item.signer,
        "signer_name": names.name(item.signer),
        "words": said(item, namer(names)),
        "block_num": listed.block_num,
        "block_id": listed.block_id,
        "time": None if timestamp is None else utc_time(timestamp),
        "batch_id": batch.batch_id,
        "status": "COMMITTED",
        "state_changes": [{"address": change.address, "type": change.type} for change in changes],
    }
