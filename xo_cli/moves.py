"""``xo create``, ``xo take`` and ``xo delete``: check, sign, submit, and optionally wait.

A move goes through the same steps whatever it is: refuse what cannot succeed
(unless ``--no-validate``), sign one transaction in one batch with the player's
key, POST it, and with ``--wait`` report how it ended. Nothing is submitted when
a check refuses the move. Only these commands import protobuf and secp256k1:
``main`` loads this module for them alone.
"""

from __future__ import annotations

import argparse

from xo_cli import games, session
from xo_cli.errors import InvalidInput, Rejected, TimedOut
from xo_cli.notation import BadSpace, grid_name, parse_space
from xo_cli.rest import RestClient
from xo_cli.waiting import Progress, wait_for_batch
from xo_core.batches import make_batch, make_batch_list, make_xo_transaction
from xo_core.family import game_address
from xo_core.keyfiles import KeyFileError, load_signer
from xo_core.signing import Signer


def create(args: argparse.Namespace) -> int:
    return play(args, "create", None)


def delete(args: argparse.Namespace) -> int:
    return play(args, "delete", None)


def take(args: argparse.Namespace) -> int:
    try:
        space = parse_space(args.space)
    except BadSpace as error:
        raise InvalidInput(str(error)) from None
    return play(args, "take", space)


def play(args: argparse.Namespace, action: str, space: int | None) -> int:
    name: str = args.name
    if "," in name:
        raise InvalidInput(f"a game name cannot contain ',' (it separates the payload's fields): {name!r}")
    if not args.no_validate and (problem := games.name_problem(name)):
        raise InvalidInput(problem)
    key_name = session.username(args)
    try:
        signer = load_signer(session.key_dir(args), key_name)
    except KeyFileError as error:
        raise InvalidInput(str(error)) from None
    with session.rest_client(args) as client:
        if not args.no_validate:
            check_move(client, action, name, space, signer.public_key)
        batch_id = submit(client, signer, action, name, space)
        what = describe(action, name, space)
        if args.wait is None:
            print(f"Submitted {what}: batch {batch_id}")
            return 0
        outcome = wait_for_batch(client, batch_id, args.wait, Progress(batch_id, args.wait))
    if outcome.status == "COMMITTED":
        print(f"Committed {what}: batch {batch_id}")
        return 0
    if outcome.status == "INVALID":
        reason = "; ".join(reason for reason in outcome.reasons if reason) or "no reason given"
        raise Rejected(f"the validator rejected {what}: {reason}")
    raise TimedOut(f"{what} is still {outcome.status} after {args.wait:g} s (batch {batch_id})")


def check_move(client: RestClient, action: str, name: str, space: int | None, player_key: str) -> None:
    """Read the game and refuse, before anything is signed or sent, a move the validator would reject."""
    data = client.get_state(game_address(name))
    found = games.decode_games(game_address(name), data)[0] if data is not None else []
    game = games.find_game(found, name)
    if action == "create":
        refusal = games.refuse_create(name, game)
    elif action == "delete":
        refusal = games.refuse_delete(name, game)
    else:
        assert space is not None
        refusal = games.refuse_take(name, game, player_key, space)
    if refusal is not None:
        raise InvalidInput(f"{refusal}; nothing was submitted")


def submit(client: RestClient, signer: Signer, action: str, name: str, space: int | None) -> str:
    """Sign the move as one transaction in one batch, POST it, and return the batch id."""
    transaction = make_xo_transaction(signer, name, action, space)
    batch = make_batch(signer, [transaction])
    client.submit_batches(make_batch_list([batch]))
    return batch.header_signature


def describe(action: str, name: str, space: int | None) -> str:
    if action == "take" and space is not None:
        return f"take {space} ({grid_name(space)}) in game {name!r}"
    return f"{action} game {name!r}"
