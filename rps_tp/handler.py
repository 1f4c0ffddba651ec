"""The rps family as a Sawtooth ``TransactionHandler``: payload in, rules applied, state and an event out.

It speaks only the SDK's handler and context interfaces, so it runs under this
project's processor runtime and under the official SDK processor alike.
"""

from collections.abc import Sequence
from typing import Final, Protocol

from sawtooth_sdk.processor.exceptions import InternalError, InvalidTransaction
from sawtooth_sdk.processor.handler import TransactionHandler

from rps_tp import rules
from rps_tp.clock import current_time
from rps_tp.family import FAMILY_NAME, FAMILY_VERSION, NAMESPACE, game_address
from rps_tp.game import quoted
from rps_tp.ops import Claim, Commit, Reveal
from rps_tp.payload import parse_payload
from rps_tp.state import decode_bucket, encode_bucket, encode_game
from xo_core.public_keys import DESCRIPTION as KEY_DESCRIPTION
from xo_core.public_keys import is_compressed_public_key

EVENT_PREFIX: Final = "rps/"
#: The ``game-state`` attribute of an ``rps/delete`` event: the game no longer has a state.
DELETED: Final = "DELETED"
#: The ops whose rules need the time (to start a time-out, or to judge a claim).
TIMED_OPS: Final = (Commit, Reveal, Claim)


class StateEntry(Protocol):
    """What the handler reads of a ``TpStateEntry``."""

    @property
    def address(self) -> str: ...

    @property
    def data(self) -> bytes: ...


class TransactionHeader(Protocol):
    """What the handler reads of a ``TransactionHeader``: who signed the op."""

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


class RpsTransactionHandler(TransactionHandler):
    """Applies the nine rps ops to the games at one address per transaction.

    Each applied transaction emits one event ``rps/<op>`` with attributes ``name``,
    ``game-state`` (the new lifecycle state, ``DELETED`` after a delete) and
    ``signer``, plus ``round`` for commit and reveal; its data is the game's new
    canonical CBOR map (empty after a delete).
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
        """Apply one rps transaction; raise ``InvalidTransaction`` for a bad op, ``InternalError`` for bad state."""
        op = parse_payload(transaction.payload)
        signer = transaction.header.signer_public_key
        check_signer(signer)
        name = op.name
        address = game_address(name)
        entries = context.get_state([address])
        games = decode_bucket(address, next((entry.data for entry in entries if entry.address == address), b""))
        game = games.get(name)
        now = current_time(context, op.NAME) if game is not None and isinstance(op, TIMED_OPS) else None

        game = rules.apply_op(game, op, signer, now)
        if game is None:
            del games[name]
        else:
            games[name] = game

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
        if isinstance(op, Commit | Reveal):
            attributes.append(("round", str(op.round)))
        context.add_event(EVENT_PREFIX + op.NAME, attributes, b"" if game is None else encode_game(game))


def check_signer(signer: str) -> None:
    """Refuse a signer key that is not a compressed secp256k1 public key in lowercase hex.

    Keys seat players and are compared as text, so one key must have one spelling. A
    validator only guarantees that the key verified the signature, which other
    spellings also do, so this is the transaction's fault: ``InvalidTransaction``.
    """
    if not is_compressed_public_key(signer):
        raise InvalidTransaction(f"the signer public key {quoted(signer)} is not {KEY_DESCRIPTION}")
