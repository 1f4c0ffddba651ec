"""Finding one block or transaction on the chain, or the transactions that wrote one address: what ``xo chain
block|transaction`` and the page's explorer share.

Sawtooth's REST API finds a block by number or whole id, and a transaction by whole id without saying which block
holds it; so an id shortened as the commands print it (``a13a0bddd56a9a97...``), a transaction's block, and a
game's transactions are found by reading the blocks from the newest back, as ``xo status`` finds a shortened batch
id (:mod:`client_core.batch_prefix`, whose rules for digits this follows). No game knowledge: a game or a channel
is its state address.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from client_core.answers import StateChange
from client_core.batch_prefix import ID_DIGITS, MIN_DIGITS, SHORTENED, UNIQUE_DIGITS
from client_core.blocks import ChainTransaction, ListedBatch, ListedBlock
from client_core.chain_words import block_time, utc_time
from client_core.errors import InvalidInput
from client_core.keys import KeyNames
from client_core.rest import RestClient
from xo_core.text import counted, quoted

Found = tuple[ListedBlock, ListedBatch, ChainTransaction]
"""A committed transaction with the block and batch that hold it."""
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

    def settled(self, found: list[T]) -> bool:
        """Whether a walk may stop: two matches are too many; with 16 digits or more the first is the one meant."""
        return len(found) > 1 or (bool(found) and len(self.prefix) + len(self.suffix) >= UNIQUE_DIGITS)


def find_block(client: RestClient, short: ShortId) -> ListedBlock:
    """The one block ``short`` names: one request for a whole id, else a walk from the newest block back."""
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


def find_transaction(client: RestClient, short: ShortId) -> Found:
    """The one committed transaction ``short`` names, with its block and batch."""
    matches: list[Found] = []
    for listed in client.listed_blocks():
        matches += [entry for entry in entries(listed) if short.matches(entry[2].transaction_id)]
        if short.settled(matches):
            break
    return only(matches, short, "committed transaction", lambda entry: entry[2].transaction_id)


def writers_of(client: RestClient, address: str) -> list[Found]:
    """Every committed transaction that may have written ``address`` (its outputs cover it), oldest first."""
    found = [
        entry
        for listed in client.listed_blocks()
        for entry in reversed(list(entries(listed)))
        if any(address.startswith(output) for output in entry[2].outputs)
    ]
    return found[::-1]


def entries(listed: ListedBlock) -> Iterator[Found]:
    """The block's transactions in the order the validator applied them, each with its block and batch."""
    for batch in listed.batches:
        for item in batch.transactions:
            yield listed, batch, item


def only(matches: list[T], short: ShortId, kind: str, key: Callable[[T], str]) -> T:
    """The one match, or a clear refusal: none (the id is on no committed block), or several (more digits)."""
    shown = quoted(short.text, 40)
    if not matches:
        raise InvalidInput(f"no {kind} on this chain has the id {shown}")
    if len(matches) > 1:
        named = ", ".join(f"{key(match)[:UNIQUE_DIGITS]}..." for match in matches[:2])
        raise InvalidInput(f"{shown} names more than one {kind} ({named}): give more of its digits")
    return matches[0]


def outcome_words(changes: list[StateChange]) -> str:
    """What the transaction did to state, from its receipt: a committed transaction was valid, by Sawtooth's rules."""
    if not changes:
        return "committed (valid); it changed no state"
    return f"committed (valid); it changed {counted(len(changes), 'address', 'addresses')} of state"


def transaction_json(found: Found, changes: list[StateChange], names: KeyNames, words: str) -> dict[str, object]:
    """For scripts and the page: where the transaction is, who signed it, what it did (``words``, said by its
    family), and the state it changed."""
    listed, batch, item = found
    timestamp = block_time(listed)
    return {
        "transaction_id": item.transaction_id,
        "family": item.family_name,
        "version": item.family_version,
        "signer": item.signer,
        "signer_name": names.name(item.signer),
        "words": words,
        "block_num": listed.block_num,
        "block_id": listed.block_id,
        "time": None if timestamp is None else utc_time(timestamp),
        "batch_id": batch.batch_id,
        "status": "COMMITTED",
        "outcome": outcome_words(changes),
        "state_changes": [{"address": change.address, "type": change.type} for change in changes],
    }
