"""The XO family as a Sawtooth ``TransactionHandler``: payload in, rules applied, state and an event out.

It speaks only the SDK's handler and context interfaces, so it runs under this
project's processor runtime and under the official SDK processor alike.
"""

from typing import Final

from sawtooth_sdk.processor.exceptions import InvalidTransaction

from tp_runtime.handler_api import FamilyHandler, ProcessRequest, StateContext, check_signer, read_entry, write_entry
from xo_core.text import game_label, quoted
from xo_tp import rules
from xo_tp.family import FAMILY_NAME, FAMILY_VERSION, NAMESPACE, game_address
from xo_tp.payload import CREATE, TAKE, parse_payload
from xo_tp.state import decode_bucket, encode_bucket, encode_game

EVENT_PREFIX: Final = "xo/"
#: The ``game-state`` attribute of an ``xo/delete`` event: the game no longer has a state.
DELETED: Final = "DELETED"


class XoTransactionHandler(FamilyHandler):
    """Applies ``create``, ``take`` and ``delete`` to the games at one address per transaction.

    Each applied transaction emits one event ``xo/<action>`` with attributes ``name``,
    ``game-state`` (the new state, ``DELETED`` after a delete) and ``signer``, plus
    ``space`` for ``take``; its data is the game's new state entry (empty after a delete).
    """

    FAMILY_NAME = FAMILY_NAME
    FAMILY_VERSION = FAMILY_VERSION
    NAMESPACE = NAMESPACE

    def apply(self, transaction: ProcessRequest, context: StateContext) -> None:
        """Apply one XO transaction; raise ``InvalidTransaction`` for a bad move, ``InternalError`` for bad state."""
        move = parse_payload(transaction.payload)
        signer = transaction.header.signer_public_key
        check_signer(signer, quoted)
        name = move.name
        address = game_address(name)
        games = decode_bucket(address, read_entry(context, address))
        game = games.get(name)

        if move.action == CREATE:
            if game is not None:
                raise InvalidTransaction(f"{game_label(name)} already exists")
            game = games[name] = rules.new_game(name)
        elif game is None:
            raise InvalidTransaction(f"{game_label(name)} does not exist; create it first")
        elif move.action == TAKE:
            assert move.space is not None  # parse_payload gives every take its space
            game = games[name] = rules.take(game, move.space, signer)
        else:
            del games[name]
            game = None

        write_entry(context, address, encode_bucket(games.values()) if games else None)

        attributes = [
            ("name", name),
            ("game-state", DELETED if game is None else game.state),
            ("signer", signer),
        ]
        if move.action == TAKE:
            attributes.append(("space", str(move.space)))
        data = b"" if game is None else encode_game(game).encode("utf-8")
        context.add_event(EVENT_PREFIX + move.action, attributes, data)
