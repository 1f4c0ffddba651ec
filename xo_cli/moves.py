"""``xo create``, ``xo take`` and ``xo delete``: check, sign, submit, and optionally wait.

A move goes through the same steps whatever it is: refuse what cannot succeed
(unless ``--no-validate``), sign one transaction in one batch with the player's
key, POST it, and with ``--wait`` report how it ended (:mod:`client_core.submission`).
Nothing is submitted when a check refuses the move. Only these commands import
protobuf and secp256k1: ``main`` loads this module for them alone.
"""

from __future__ import annotations

import argparse

from client_core import session
from client_core.errors import InvalidInput
from client_core.rest import RestClient
from client_core.submission import await_outcome, require_committed, submit
from xo_cli import games
from xo_cli.notation import BadSpace, grid_name, parse_space
from xo_core.keyfiles import KeyFileError, load_signer
from xo_tp.family import game_address
from xo_tp.transactions import make_xo_transaction


def create(args: argparse.Namespace) -> int:
    """``xo create NAME``."""
    return play(args, "create", None)


def delete(args: argparse.Namespace) -> int:
    """``xo delete NAME``."""
    return play(args, "delete", None)


def take(args: argparse.Namespace) -> int:
    """``xo take NAME SPACE``; the space is checked before anything else, since no key or network can fix it."""
    try:
        space = parse_space(args.space)
    except BadSpace as error:
        raise InvalidInput(str(error)) from None
    return play(args, "take", space)


def play(args: argparse.Namespace, action: str, space: int | None) -> int:
    """One move, from the command line to its outcome: the steps are the same for every action.

    Local checks come first (name, key) so that a typo costs no request, and the
    game is read before signing so that a refused move is never sent.
    """
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
    what = describe(action, name, space)
    with session.rest_client(args) as client:
        if not args.no_validate:
            check_move(client, action, name, space, signer.public_key)
        batch_id = submit(client, signer, [make_xo_transaction(signer, name, action, space)])
        if args.wait is None:
            print(f"Submitted {what}: batch {batch_id}")
            return 0
        outcome = await_outcome(client, batch_id, args.wait)
    require_committed(outcome, what, batch_id, args.wait)
    print(f"Committed {what}: batch {batch_id}")
    return 0


def check_move(client: RestClient, action: str, name: str, space: int | None, player_key: str) -> None:
    """Read the game and refuse, before anything is signed or sent, a move the validator would reject.

    Data at the game's address that does not decode stops every move there: the
    processor decodes the whole address too, and fails on it.
    """
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
        refusal = games.refuse_create(name, game)
    elif action == "delete":
        refusal = games.refuse_delete(name, game)
    else:
        assert space is not None
        refusal = games.refuse_take(name, game, player_key, space)
    if refusal is not None:
        raise InvalidInput(f"{refusal}; nothing was submitted")


def describe(action: str, name: str, space: int | None) -> str:
    """The move as the output names it, with the space in both notations so either reading is confirmed."""
    if action == "take" and space is not None:
        return f"take {space} ({grid_name(space)}) in game {name!r}"
    return f"{action} game {name!r}"
