"""The XO family as a Sawtooth ``TransactionHandler``: payload in, rules applied, state and an event out.

It speaks only the SDK's handler and context interfaces, so it runs under this
project's processor runtime and under the official SDK processor alike.
"""

from collections.abc import Sequence
from typing import Final, Protocol

from sawtooth_sdk.processor.exceptions import InternalError, InvalidTransaction
from sawtooth_sdk.processor.handler import TransactionHandler

from xo_core.public_keys import DESCRIPTION as KEY_DESCRIPTION
from xo_core.public_keys import is_compressed_public_key
from xo_tp import rules
from xo_tp.family import FAMILY_NAME, FAMILY_VERSION, NAMESPACE, game_address
from xo_tp.payload import CREATE, TAKE, parse_payload
from xo_tp.state import decode_bucket, encode_bucket, encode_game

EVENT_PREFIX: Final = "xo/"
#: The ``game-state`` attribute of an ``xo/delete`` event: the game no longer has a state.
DELETED: Final = "DELETED"


class StateEntry(Protocol):
    """What the handler reads of a ``TpStateEntry``."""

    @property
    def address(self) -> str: ...

    @property
    def data(self) -> bytes: ...


class TransactionHeader(Protocol):
    """What the handler reads of a ``TransactionHeader``: who signed the move."""

    @property
    def signer_public_key(self) -> str: ...


class ProcessRequest(Protocol):
    """What the handler reads of a ``TpProcessRequest``."""

    @property
    def header(self) -> TransactionHeader: ...

    @property
    def payload(self) -> bytes: ...


class StateContext(Protocol):
    """The part of the SDK's ``Context`` API the handler calls (timeouts left to the runtime)."""

    def get_state(self, addresses: list[str]) -> Sequence[StateEntry]: ...

    def set_state(self, entries: dict[str, bytes]) -> Sequence[str]: ...

    def delete_state(self, addresses: list[str]) -> Sequence[str]: ...

    def add_event(self, event_type: str, attributes: list[tuple[str, str]], data: bytes) -> None: ...


class XoTransactionHandler(TransactionHandler):
    """Applies ``create``, ``take`` and ``delete`` to the games at one address per transaction.

    Each applied transaction emits one event ``xo/<action>`` with attributes ``name``,
    ``game-state`` (the new state, ``DELETED`` after a delete) and ``signer``, plus
    ``space`` for ``take``; its data is the game's new state entry (empty after a delete).
    """

    @property
    def family_name(self) -> str:
        return FAMILY_NAME

    @property
    def family_versions(self) -> list[str]:
        return [FAMILY_VERSION]

    @property
    def namespaces(self) -> list[str]:
        return [NAMESPACE]

    def apply(self, transaction: ProcessRequest, context: StateContext) -> None:
        """Apply one XO transaction; raise ``InvalidTransaction`` for a bad move, ``InternalError`` for bad state."""
        move = parse_payload(transaction.payload)
        signer = transaction.header.signer_public_key
        check_signer(signer)
        name = move.name
        address = game_address(name)
        entries = context.get_state([address])
        games = decode_bucket(address, next((entry.data for entry in entries if entry.address == address), b""))
        game = games.get(name)

        if move.action == CREATE:
            if game is not None:
                raise InvalidTransaction(f"{rules.game_label(name)} already exists")
            game = games[name] = rules.new_game(name)
        elif game is None:
            raise InvalidTransaction(f"{rules.game_label(name)} does not exist; create it first")
        elif move.action == TAKE:
            assert move.space is not None  # parse_payload gives every take its space
            game = games[name] = rules.take(game, move.space, signer)
        else:
            del games[name]
            game = None

        if games:
            written = context.set_state({address: encode_bucket(games.values())})
            if address not in written:
                raise InternalError(f"the validator did not write state at {address}")
        elif address not in context.delete_state([address]):
            raise InternalError(f"the validator did not delete state at {address}")

        attributes = [
            ("name", name),
            ("game-state", DELETED if game is None else game.state),
            ("signer", signer),
        ]
        if move.action == TAKE:
            attributes.append(("space", str(move.space)))
        data = b"" if game is None else encode_game(game).encode("utf-8")
        context.add_event(EVENT_PREFIX + move.action, attributes, data)


def check_signer(signer: str) -> None:
    """Refuse a signer key that is not a compressed secp256k1 public key in lowercase hex.

    The key is stored in the game and compared as text to seat players, so one key must
    have one spelling: ``02AB..`` and ``02ab..`` (or a key's compressed and uncompressed
    forms) would otherwise be two players. A validator only guarantees that the key
    verified the signature, which uppercase hex and 65-byte uncompressed keys also do,
    so this is the transaction's fault, not the chain's: ``InvalidTransaction``, which
    rejects it for good, rather than ``InternalError``, which would have the validator
    retry it again and again. Every Sawtooth signing library writes keys in this form.
    """
    if not is_compressed_public_key(signer):
        raise InvalidTransaction(f"the signer public key {rules.quoted(signer)} is not {KEY_DESCRIPTION}")
