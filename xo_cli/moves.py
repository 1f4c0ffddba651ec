"""``xo create``, ``xo take`` and ``xo delete``: check, sign, submit, and optionally wait.

A move goes through the same steps whatever it is: refuse what cannot succeed
(unless ``--no-validate``), sign one transaction in one batch with the player's
key, POST it, and with ``--wait`` report how it ended. Nothing is submitted when
a check refuses the move. Once the POST has gone out, every way the command can
end names the batch: it may commit whatever happens to xo, and its id is how
the player finds out. Only these commands import protobuf and secp256k1:
``main`` loads this module for them alone.
"""

from __future__ import annotations

import argparse

from xo_cli import games, session
from xo_cli.errors import Interrupted, InvalidInput, Rejected, TimedOut, XoError
from xo_cli.notation import BadSpace, grid_name, parse_space
from xo_cli.rest import BatchStatus, RestClient
from xo_cli.waiting import Progress, wait_for_batch
from xo_core.batches import make_batch, make_batch_list, make_xo_transaction
from xo_core.family import game_address
from xo_core.keyfiles import KeyFileError, load_signer
from xo_core.signing import Signer


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
        batch_id = submit(client, signer, action, name, space)
        if args.wait is None:
            print(f"Submitted {what}: batch {batch_id}")
            return 0
        outcome = await_outcome(client, batch_id, args.wait)
    if outcome.status == "COMMITTED":
        print(f"Committed {what}: batch {batch_id}")
        return 0
    if outcome.status == "INVALID":
        reason = "; ".join(reason for reason in outcome.reasons if reason) or "no reason given"
        raise Rejected(f"the validator rejected {what}: {reason}")
    if outcome.status == "UNKNOWN":
        raise TimedOut(
            f"the REST API does not know batch {batch_id} ({what}): the validator never received it or has "
            "forgotten it, so it may never commit"
        )
    raise TimedOut(f"{what} is still {outcome.status} after {args.wait:g} s (batch {batch_id})")


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


def submit(client: RestClient, signer: Signer, action: str, name: str, space: int | None) -> str:
    """Sign the move as one transaction in one batch, POST it, and return the batch id."""
    transaction = make_xo_transaction(signer, name, action, space)
    batch = make_batch(signer, [transaction])
    try:
        client.submit_batches(make_batch_list([batch]))
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted while submitting batch {batch.header_signature}: it may still commit") from None
    return batch.header_signature


def await_outcome(client: RestClient, batch_id: str, seconds: float) -> BatchStatus:
    """Wait for the batch; if waiting fails, the error still names the batch, which may commit regardless."""
    try:
        return wait_for_batch(client, batch_id, seconds, Progress(batch_id, seconds))
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted while waiting: batch {batch_id} was submitted and may still commit") from None
    except XoError as error:
        raise type(error)(f"{error.message}; batch {batch_id} was submitted and may still commit") from error


def describe(action: str, name: str, space: int | None) -> str:
    """The move as the output names it, with the space in both notations so either reading is confirmed."""
    if action == "take" and space is not None:
        return f"take {space} ({grid_name(space)}) in game {name!r}"
    return f"{action} game {name!r}"
