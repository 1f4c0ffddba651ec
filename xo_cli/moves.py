"""``xo create``, ``xo take`` and ``xo delete``: check, sign, submit, and optionally wait.

A move goes through the same steps whatever it is: refuse what cannot succeed
(unless ``--no-validate``), sign one transaction in one batch with the player's
key, POST it, and with ``--wait`` report how it ended (:mod:`client_core.submission`)
and what the game became: a move that ends the game says who won on its
committing line. The resulting game is read from the transaction's receipt, the
state this very transaction wrote, so a move made right after by someone else
cannot be mistaken for this one's outcome. Nothing is submitted when a check
refuses the move. Only these commands import protobuf and secp256k1: ``main``
loads this module for them alone.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

from client_core.caller import Caller, Who
from client_core.errors import InvalidInput
from client_core.rest import RestClient
from client_core.runner import sigterm_interrupts
from client_core.submission import await_outcome, require_committed, submit
from xo_client import checks, games
from xo_client.checks import check_name
from xo_client.games import resulting_game
from xo_client.notation import BadSpace, parse_space
from xo_client.outcome import mover_text, outcome_text
from xo_client.transactions import describe, make_xo_transaction
from xo_tp.family import game_address


def create(args: argparse.Namespace) -> int:
    """``xo create NAME``."""
    return play(Caller.of(args), Move.of(args, "create", None))


def delete(args: argparse.Namespace) -> int:
    """``xo delete NAME``."""
    return play(Caller.of(args), Move.of(args, "delete", None))


def take(args: argparse.Namespace) -> int:
    """``xo take NAME SPACE``; the space is checked before anything else, since no key or network can fix it."""
    try:
        space = parse_space(args.space)
    except BadSpace as error:
        raise InvalidInput(str(error)) from None
    return play(Caller.of(args), Move.of(args, "take", space))


@dataclass(frozen=True)
class Move:
    """One move as its command line asks for it: what to do to which game, and how to report it."""

    action: str
    name: str
    space: int | None
    validate: bool
    """Read the game and refuse locally what the validator would reject (not ``--no-validate``)."""
    both_seats: bool
    wait: float | None
    output: str

    @classmethod
    def of(cls, args: argparse.Namespace, action: str, space: int | None) -> Move:
        """The move ``xo create|take|delete`` asks for, with its flags."""
        both_seats = getattr(args, "both_seats", False)
        return cls(action, args.name, space, not args.no_validate, both_seats, args.wait, args.format)


def play(caller: Caller, move: Move) -> int:
    """One move, from the command line to its outcome: the steps are the same for every action.

    Local checks come first (name, key) so that a typo costs no request, and the
    game is read before signing so that a refused move is never sent.
    """
    action, name, space = move.action, move.name, move.space
    check_name(name, validate=move.validate)
    signer = caller.who.signer("xo")
    what = describe(action, name, space)
    transaction = make_xo_transaction(signer, name, action, space)
    with sigterm_interrupts(), caller.where.rest_client() as client:
        if move.validate:
            check_move(client, caller.who, move, signer.public_key)
        batch_id = submit(client, signer, [transaction])
        if move.wait is None:
            submitted = move_json(action, name, space, batch_id, status="SUBMITTED")
            print(submitted if move.output == "json" else f"Submitted {what}: batch {batch_id}")
            return 0
        outcome = await_outcome(client, batch_id, move.wait)
        require_committed(outcome, what, batch_id, move.wait)
        found, game = resulting_game(client, transaction.header_signature, name)
    if move.output == "json":
        print(move_json(action, name, space, batch_id, status="COMMITTED", game=game.as_json() if game else None))
        return 0
    ending = None
    if found and game is not None:
        mark = mover_text(game, signer.public_key) if action == "take" else None
        ending = outcome_text(game, caller.who.key_names()) or mark
    print(f"Committed {what}{', ' + ending if ending else ''}: batch {batch_id}")
    return 0


def check_move(client: RestClient, who: Who, move: Move, player_key: str) -> None:
    """Read the game and refuse, before anything is signed or sent, a move the validator would reject.

    Data at the game's address that does not decode stops every move there: the
    processor decodes the whole address too, and fails on it.
    """
    action, name, space = move.action, move.name, move.space
    address = game_address(name)
    data = client.get_state(address)
    found, problems = games.decode_games(address, data) if data is not None else ([], [])
    if problems:
        raise InvalidInput(
            f"{'; '.join(problems)} (not XO data, so the processor cannot apply any move to this game); "
            "nothing was submitted"
        )
    game = games.find_game(found, name)
    if action == "create":
        refusal = checks.refuse_create(name, game, who.key_names())
    elif action == "delete":
        refusal = checks.refuse_delete(name, game)
    else:
        assert space is not None
        names = who.key_names()
        refusal = checks.refuse_take(name, game, player_key, space, names=names, both_seats=move.both_seats)
    if refusal is not None:
        raise InvalidInput(f"{refusal}; nothing was submitted")


def move_json(
    action: str, name: str, space: int | None, batch_id: str, *, status: str, game: dict[str, str] | None = None
) -> str:
    """``--json`` of a move: what was sent, the batch, and (once committed) the game it left, null after a delete."""
    document: dict[str, object] = {"action": action, "name": name, "space": space, "batch_id": batch_id}
    document["status"] = status
    if status == "COMMITTED":
        document["game"] = game
    return json.dumps(document, indent=2)
