"""The page's explorer: a game's or a channel's transactions, and one transaction, as ``xo chain`` says them.

``GET /api/chain/transactions?game=NAME`` (XO), ``?rps=NAME`` or ``?channel=ID`` lists, oldest first, every
committed transaction that may have written the game's or channel's state address (the family's address of it:
its outputs cover it), each said in words by its family; ``GET /api/chain/transaction?id=ID`` is one of them with
its block, batch, time and outcome (``xo chain transaction ID --json``'s object, :mod:`client_core.chain_lookup`).
An id may be shortened as the commands print it. Blocking (``http.client``): the server runs both in a worker
thread; each reads the chain from the newest block back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from chips_client import chain_words as chips_words
from chips_tp.family import channel_address
from client_core.blocks import ChainTransaction
from client_core.chain_lookup import Found, ShortId, find_transaction, transaction_json, writers_of
from client_core.chain_words import Words, block_info_words, block_time, namer, said_by, utc_time
from client_core.errors import CommandError, InvalidInput
from client_core.keys import KeyNames
from client_core.rest import RestClient
from rps_client import chain_words as rps_words
from rps_client.games import impossible_name as impossible_rps_name
from rps_tp.family import game_address as rps_game_address
from xo_client import chain_words as xo_words
from xo_client.games import impossible_name
from xo_core.text import game_label, printable
from xo_tp.family import game_address
from xo_web.errors import NOT_FOUND, UNAVAILABLE, ApiError, bad_request
from xo_web.views import shown_name

FAMILY_WORDS: Final[dict[str, Words]] = {
    "xo": xo_words.words,
    "rps": rps_words.words,
    "chips": chips_words.words,
    "block_info": block_info_words,
}
"""Each family's reader of its own payloads, as ``xo chain`` has them."""
CHANNEL_ID = re.compile(r"[0-9a-f]{64}")
T = TypeVar("T")


def subject_of(kind: str, name: str) -> tuple[str, str]:
    """``(address, shown)`` of what ``?game=``, ``?rps=`` or ``?channel=`` names; 400 for a name no game can have."""
    if kind == "channel":
        if not CHANNEL_ID.fullmatch(name):
            raise bad_request("a channel is named by its id: 64 lowercase hex digits")
        return channel_address(bytes.fromhex(name)), f"channel {name[:8]}"
    problem = impossible_name(name) if kind == "game" else impossible_rps_name(name)
    if problem:
        raise bad_request(problem)
    address = game_address(name) if kind == "game" else rps_game_address(name)
    return address, game_label(name) if kind == "game" else f"rps {game_label(name)}"


@dataclass(frozen=True)
class Explorer:
    """Reads the chain of the REST API at ``rest_url`` for the page."""

    rest_url: str
    auth: tuple[str, str] | None = None
    trace: Callable[[str], None] | None = None

    def transactions_of(self, kind: str, name: str, names: KeyNames) -> dict[str, Any]:
        """Every transaction that wrote the game's or channel's address, oldest first, each in words."""
        address, shown = subject_of(kind, name)
        found = self.reading(lambda client: writers_of(client, address))
        return {
            "kind": kind,
            "shown": shown,
            "address": address,
            "transactions": [summary(entry, names) for entry in found],
        }

    def one_transaction(self, text: str, names: KeyNames) -> dict[str, Any]:
        """``xo chain transaction ID --json``'s object, with the signer's name as the page shows names."""
        try:
            short = ShortId.parse(text, "transaction")
        except InvalidInput as error:
            raise bad_request(error.message) from None

        def read(client: RestClient) -> dict[str, Any]:
            try:
                found = find_transaction(client, short)
            except InvalidInput as error:
                raise ApiError(404, NOT_FOUND, "Not Found", error.message) from None
            changes = client.state_changes(found[2].transaction_id)
            document = transaction_json(found, changes, names, words(found[2], names))
            return {**document, "signer_name": shown_name(found[2].signer, names)}

        return self.reading(read)

    def reading(self, read: Callable[[RestClient], T]) -> T:
        """``read`` with a client of the REST API; a failure to read is a 502 in words, as ``/api/history``'s is."""
        try:
            with RestClient(self.rest_url, auth=self.auth, trace=self.trace) as client:
                return read(client)
        except ApiError:
            raise
        except CommandError as error:
            raise ApiError(502, UNAVAILABLE, "REST API Unavailable", error.message) from None


def summary(entry: Found, names: KeyNames) -> dict[str, Any]:
    """One row of a game's or channel's transactions: where, when, who, what."""
    listed, _, item = entry
    timestamp = block_time(listed)
    return {
        "transaction_id": item.transaction_id,
        "block_num": listed.block_num,
        "time": None if timestamp is None else utc_time(timestamp),
        "family": printable(item.family_name),
        "signer": item.signer,
        "signer_name": shown_name(item.signer, names),
        "words": words(item, names),
    }


def words(item: ChainTransaction, names: KeyNames) -> str:
    """What the transaction did, said by its family, keys by their names."""
    return said_by(FAMILY_WORDS, item, namer(names))
