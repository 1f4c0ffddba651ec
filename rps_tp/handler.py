"""The rps family as a Sawtooth ``TransactionHandler``: payload in, rules applied, state and an event out.

It speaks only the SDK's handler and context interfaces, so it runs under this
project's processor runtime and under the official SDK processor alike.
"""

from typing import Final

from sawtooth_sdk.processor.exceptions import InvalidTransaction

from rps_tp import rules
from rps_tp.family import FAMILY_NAME, FAMILY_VERSION, FAMILY_VERSIONS, NAMESPACE, game_address, version_problem
from rps_tp.ops import Claim, Commit, Ready, Reveal
from rps_tp.payload import parse_payload
from rps_tp.state import decode_bucket, encode_bucket, encode_game
from tp_runtime.clock import current_time
from tp_runtime.handler_api import FamilyHandler, ProcessRequest, StateContext, check_signer, read_entry, write_entry
from xo_core.text import quoted

EVENT_PREFIX: Final = "rps/"
#: The ``game-state`` attribute of an ``rps/delete`` event: the game no longer has a state.
DELETED: Final = "DELETED"
#: The ops whose rules need the time: those that can begin a phase (and so start its
#: clock: the ready that starts play, the second commit, the reveal that scores a round)
#: and the claim that is judged by it.
TIMED_OPS: Final = (Ready, Commit, Reveal, Claim)


class RpsTransactionHandler(FamilyHandler):
    """Applies the nine rps ops to the games at one address per transaction.

    It registers for rps 2.0, and for 1.0 only to refuse its transactions with a
    message (:func:`rps_tp.family.version_problem`).

    Each applied transaction emits one event ``rps/<op>`` with attributes ``name``,
    ``game-state`` (the new lifecycle state, ``DELETED`` after a delete) and
    ``signer``, plus ``round`` for commit and reveal; its data is the game's new
    canonical CBOR map (empty after a delete).
    """

    FAMILY_NAME = FAMILY_NAME
    FAMILY_VERSION = FAMILY_VERSION
    NAMESPACE = NAMESPACE

    @property
    def family_versions(self) -> list[str]:
        """2.0, and 1.0 only so that its transactions are refused with a message rather than left waiting."""
        return list(FAMILY_VERSIONS)

    def apply(self, transaction: ProcessRequest, context: StateContext) -> None:
        """Apply one rps transaction; raise ``InvalidTransaction`` for a bad op, ``InternalError`` for bad state."""
        problem = version_problem(transaction.header.family_version)
        if problem:
            raise InvalidTransaction(problem)
        op = parse_payload(transaction.payload)
        signer = transaction.header.signer_public_key
        check_signer(signer, quoted)
        name = op.name
        address = game_address(name)
        games = decode_bucket(address, read_entry(context, address))
        game = games.get(name)
        now = current_time(context, op.NAME) if game is not None and isinstance(op, TIMED_OPS) else None

        game = rules.apply_op(game, op, signer, now)
        if game is None:
            del games[name]
        else:
            games[name] = game

        write_entry(context, address, encode_bucket(games.values()) if games else None)

        attributes = [
            ("name", name),
            ("game-state", DELETED if game is None else game.state),
            ("signer", signer),
        ]
        if isinstance(op, Commit | Reveal):
            attributes.append(("round", str(op.at.round)))
        context.add_event(EVENT_PREFIX + op.NAME, attributes, b"" if game is None else encode_game(game))
