"""Blocks, their transactions and their state changes, as a Sawtooth REST API and its websocket send them.

Read as totally as :mod:`client_core.answers` reads everything else: each field is
checked for the type Sawtooth gives it, and whatever a server sends ends in a value
or in :class:`~client_core.errors.Unavailable` ("does not answer like a Sawtooth REST
API"), never in an exception that would pass for a bug. Pure, no I/O: the same
readers serve the blocking client (``xo history``) and the asyncio follower.

Block numbers travel as decimal text (``"12"``) in both the REST API's blocks and the
websocket's messages; here they are ``int``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from client_core.answers import MAX_SHOWN, Answers, Response, StateChange, parse_json
from client_core.errors import Unavailable

BLOCK_ID = re.compile(r"[0-9a-f]{1,256}")
"""A block id as the chain writes it: lowercase hex (128 characters for Sawtooth's signatures)."""
MAX_BLOCK_NUM = 2**63 - 1


class ChainChanged(Unavailable):
    """The block a client stood on is not on the chain any more: a fork went the other way, or a new chain."""


class BlockRef(NamedTuple):
    """One block of the chain by id and number: where a follower stands, or resumes from."""

    block_id: str
    block_num: int


class BlockChanges(NamedTuple):
    """A committed block and its state changes under the followed address prefixes.

    ``changes`` holds at most one change per address, the block's last (a ``SET`` with
    the new value or a ``DELETE``), in no particular order; a block that changed nothing
    under the prefixes has none.
    """

    block_id: str
    block_num: int
    previous_block_id: str
    changes: tuple[StateChange, ...]

    @property
    def ref(self) -> BlockRef:
        return BlockRef(self.block_id, self.block_num)


class ServerNote(NamedTuple):
    """A websocket message that is not a block: ``kind`` is ``error`` or ``warning`` (``Validator unavailable``)."""

    kind: str
    text: str


class ChainTransaction(NamedTuple):
    """A committed transaction as a block lists it: who signed it, which family, what it may touch, its payload."""

    transaction_id: str
    family_name: str
    family_version: str
    signer: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    payload: bytes


class ChainBlock(NamedTuple):
    """A committed block with its transactions, in the order the validator applied them."""

    block_id: str
    block_num: int
    previous_block_id: str
    transactions: tuple[ChainTransaction, ...]

    @property
    def ref(self) -> BlockRef:
        return BlockRef(self.block_id, self.block_num)


class ListedBatch(NamedTuple):
    """A committed batch as ``xo chain`` and ``status`` by a prefix read it: its id, its signer, its transactions."""

    batch_id: str
    signer: str
    transactions: tuple[ChainTransaction, ...]


class ListedBlock(NamedTuple):
    """A committed block with who signed it and its batches, as ``sawtooth block list`` shows one."""

    block_id: str
    block_num: int
    previous_block_id: str
    signer: str
    batches: tuple[ListedBatch, ...]
    state_root: str = ""
    """The Merkle root of state after the block (``state_root_hash``), as ``sawtooth block show`` prints it."""

    @property
    def transactions(self) -> tuple[ChainTransaction, ...]:
        return tuple(transaction for batch in self.batches for transaction in batch.transactions)


def may_write_under(transaction: ChainTransaction, prefixes: Sequence[str]) -> bool:
    """Whether ``transaction`` may have changed state under one of ``prefixes`` (no prefixes: everything).

    A transaction can only write where its ``outputs`` allow, and an output may itself
    be a prefix, so either may start with the other.
    """
    if not prefixes:
        return True
    return any(output.startswith(prefix) or prefix.startswith(output) for output in transaction.outputs
               for prefix in prefixes)


def under(address: str, prefixes: Sequence[str]) -> bool:
    """Whether ``address`` is under one of ``prefixes`` (no prefixes: every address is)."""
    return not prefixes or any(address.startswith(prefix) for prefix in prefixes)


def squash(
    block: ChainBlock, receipts: dict[str, list[StateChange]], prefixes: Sequence[str]
) -> BlockChanges:
    """A block's changes under ``prefixes`` from its transactions' receipts: the last change per address.

    This is what the validator's state-delta event, and so the websocket, carries for
    the block. ``receipts`` needs an entry for every transaction that
    :func:`may_write_under` the prefixes; the others cannot have changed anything there.
    """
    last: dict[str, StateChange] = {}
    for transaction in block.transactions:
        for change in receipts.get(transaction.transaction_id, ()):
            if under(change.address, prefixes):
                last.pop(change.address, None)
                last[change.address] = change
    return BlockChanges(block.block_id, block.block_num, block.previous_block_id, tuple(last.values()))


class ChainAnswers:
    """Reads blocks, receipts and websocket messages of the REST API that ``answers`` names."""

    def __init__(self, answers: Answers) -> None:
        self.answers = answers

    def blocks_page(self, response: Response, path: str) -> tuple[list[ChainBlock], str | None]:
        """``GET /blocks?...``: the page's blocks (newest first) and the query of the next page, if any."""
        envelope = self.answers.envelope(response, "data")
        items = envelope["data"]
        if not isinstance(items, list):
            raise self.answers.not_sawtooth(f"'data' of {path} is not a list")
        return [self.block(item, path) for item in items], self.answers.next_page_query(envelope)

    def block(self, item: object, path: str) -> ChainBlock:
        """One block of a ``/blocks`` answer."""
        if not isinstance(item, dict):
            raise self.answers.not_sawtooth(f"{path} lists a block that is not an object")
        header = self._object(item, "header", path)
        block_id = self._block_id(item.get("header_signature"), "header_signature", path)
        number = self.block_num(header.get("block_num"), path)
        previous = self._block_id(header.get("previous_block_id"), "previous_block_id", path)
        batches = item.get("batches", [])
        if not isinstance(batches, list):
            raise self.answers.not_sawtooth(f"'batches' of a block in {path} is not a list")
        transactions: list[ChainTransaction] = []
        for batch in batches:
            if not isinstance(batch, dict) or not isinstance(batch.get("transactions", []), list):
                raise self.answers.not_sawtooth(f"{path} lists a batch without a list of transactions")
            transactions.extend(self.transaction(entry, path) for entry in batch.get("transactions", []))
        return ChainBlock(block_id, number, previous, tuple(transactions))

    def listed_blocks_page(self, response: Response, path: str) -> tuple[list[ListedBlock], str | None]:
        """``GET /blocks?...`` with each block's signer and batches: the page's blocks and the next page's query."""
        envelope = self.answers.envelope(response, "data")
        items = envelope["data"]
        if not isinstance(items, list):
            raise self.answers.not_sawtooth(f"'data' of {path} is not a list")
        return [self.listed_block(item, path) for item in items], self.answers.next_page_query(envelope)

    def listed_block(self, item: object, path: str) -> ListedBlock:
        """One block of a ``/blocks`` answer, its batches kept apart."""
        block = self.block(item, path)
        assert isinstance(item, dict)  # block() refused anything else
        batches = []
        for batch in item.get("batches", []):
            batch_id = batch.get("header_signature")
            header = self._object(batch, "header", path)
            if not isinstance(batch_id, str) or not BLOCK_ID.fullmatch(batch_id):
                raise self.answers.not_sawtooth(f"{path} lists a batch without a valid header_signature")
            transactions = tuple(self.transaction(entry, path) for entry in batch.get("transactions", []))
            batches.append(ListedBatch(batch_id, self._text(header, "signer_public_key", path), transactions))
        header = self._object(item, "header", path)
        signer = self._text(header, "signer_public_key", path)
        state_root = self._text(header, "state_root_hash", path)
        return ListedBlock(
            block.block_id, block.block_num, block.previous_block_id, signer, tuple(batches), state_root
        )

    def transaction(self, item: object, path: str) -> ChainTransaction:
        """One transaction of a block (``/blocks``) or of ``/transactions``."""
        if not isinstance(item, dict):
            raise self.answers.not_sawtooth(f"{path} lists a transaction that is not an object")
        header = self._object(item, "header", path)
        transaction_id = item.get("header_signature")
        if not isinstance(transaction_id, str) or not transaction_id:
            raise self.answers.not_sawtooth(f"{path} lists a transaction without a header_signature")
        texts = {key: header.get(key, "") for key in ("family_name", "family_version", "signer_public_key")}
        if not all(isinstance(value, str) for value in texts.values()):
            raise self.answers.not_sawtooth(f"{path} lists a transaction whose header fields are not text")
        return ChainTransaction(
            transaction_id,
            texts["family_name"],
            texts["family_version"],
            texts["signer_public_key"],
            self._addresses(header, "inputs", path),
            self._addresses(header, "outputs", path),
            self.answers.data(item.get("payload", ""), path),
        )

    def receipts(self, response: Response, path: str) -> dict[str, list[StateChange]]:
        """``/receipts``: the state changes of each transaction named, by transaction id."""
        entries = self.answers.envelope(response, "data")["data"]
        if not isinstance(entries, list):
            raise self.answers.not_sawtooth(f"'data' of {path} is not a list")
        found: dict[str, list[StateChange]] = {}
        for entry in entries:
            if not isinstance(entry, dict):
                raise self.answers.not_sawtooth(f"{path} lists a receipt that is not an object")
            transaction_id = entry.get("id", entry.get("transaction_id"))
            if not isinstance(transaction_id, str):
                raise self.answers.not_sawtooth(f"{path} lists a receipt without a transaction id")
            found[transaction_id] = self.state_changes(entry.get("state_changes", []), path)
        return found

    def state_changes(self, changes: object, path: str) -> list[StateChange]:
        """A list of ``{"address", "type", "value"}``, as receipts and the websocket write them."""
        if not isinstance(changes, list):
            raise self.answers.not_sawtooth(f"'state_changes' of {path} is not a list")
        found = []
        for change in changes:
            if not isinstance(change, dict) or not isinstance(change.get("address"), str):
                raise self.answers.not_sawtooth(f"{path} lists a state change without an address")
            kind = change.get("type")
            if kind not in ("SET", "DELETE"):
                raise self.answers.not_sawtooth(f"{path} lists a state change of no known type")
            found.append(StateChange(change["address"], kind, self.answers.data(change.get("value", ""), path)))
        return found

    def message(self, text: str) -> BlockChanges | ServerNote:
        """A websocket text message: a block's changes, or an error or warning."""
        document = parse_json(text.encode("utf-8", "surrogatepass"))
        where = "/subscriptions"
        if not isinstance(document, dict):
            raise self.answers.not_sawtooth(f"{where} sent a message that is not a JSON object")
        for kind in ("error", "warning"):
            if kind in document and "block_id" not in document:
                value = document[kind]
                return ServerNote(kind, value if isinstance(value, str) else json.dumps(value)[:MAX_SHOWN])
        block_id = self._block_id(document.get("block_id"), "block_id", where)
        number = self.block_num(document.get("block_num"), where)
        previous = self._block_id(document.get("previous_block_id"), "previous_block_id", where)
        changes = self.state_changes(document.get("state_changes", []), where)
        return BlockChanges(block_id, number, previous, tuple(changes))

    def block_num(self, value: object, path: str) -> int:
        """A block number: decimal text as Sawtooth writes it (a JSON number is accepted too)."""
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 19:
            number = int(value)
        else:
            raise self.answers.not_sawtooth(f"a block in {path} has no block number")
        if not 0 <= number <= MAX_BLOCK_NUM:
            raise self.answers.not_sawtooth(f"a block in {path} has the block number {number}")
        return number

    def _block_id(self, value: object, field: str, path: str) -> str:
        if not isinstance(value, str) or not BLOCK_ID.fullmatch(value):
            raise self.answers.not_sawtooth(f"a block in {path} has no valid {field}")
        return value

    def _text(self, header: dict[str, Any], key: str, path: str) -> str:
        value = header.get(key, "")
        if not isinstance(value, str):
            raise self.answers.not_sawtooth(f"{path} lists an item whose '{key}' is not text")
        return value

    def _object(self, item: dict[str, Any], key: str, path: str) -> dict[str, Any]:
        value = item.get(key)
        if not isinstance(value, dict):
            raise self.answers.not_sawtooth(f"{path} lists an item without a '{key}' object")
        return value

    def _addresses(self, header: dict[str, Any], key: str, path: str) -> tuple[str, ...]:
        value = header.get(key, [])
        if not isinstance(value, list) or not all(isinstance(address, str) for address in value):
            raise self.answers.not_sawtooth(f"{path} lists a transaction whose '{key}' is not a list of addresses")
        return tuple(value)
