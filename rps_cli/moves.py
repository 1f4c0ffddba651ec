"""``rps create``, ``join``, ``setup``, ``ready``, ``resign``, ``claim`` and ``delete``: check, sign, submit, wait.

Every op goes through the same steps, as ``xo``'s moves do: refuse what cannot succeed
(unless ``--no-validate``), sign one transaction in one batch, POST it, and with
``--wait`` report how it ended (:mod:`client_core.submission`) and where the game
stands after it, read from the transaction's own receipt. The game is read first even
with ``--no-validate`` when the op needs it: ``setup`` keeps the settings not given,
``ready`` agrees to the settings the game has, and every op but ``create`` is signed for
the moment (round and phase) the game was read at, so that it can count then only
(:func:`rps_client.transactions.signed_for`). A claim is checked against the time it will
be judged at (:func:`rps_client.clock.claim_time`). Nothing is submitted when a check
refuses the op.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass

from client_core.caller import Caller, Who
from client_core.errors import InvalidInput, UsageError
from client_core.keys import KeyNames
from client_core.runner import sigterm_interrupts, warn
from client_core.submission import await_outcome, require_committed, submit
from rps_cli import render
from rps_cli.render import say
from rps_client.checks import refusal
from rps_client.clock import claim_time
from rps_client.games import game_json, impossible_name, read_game, resulting_game
from rps_client.outcome import outcome_text
from rps_client.transactions import describe, make_rps_transaction, signed_for
from rps_client.vault import Vault, VaultProblem, spent_in
from rps_tp.game import CONCLUDED, DEFAULT_SETTINGS, Game, Settings
from rps_tp.ops import Claim, Create, Delete, Join, Op, Ready, Resign, Setup
from xo_core.text import game_label

OpMaker = Callable[[Game | None], Op]


@dataclass(frozen=True)
class Sending:
    """What an ``rps`` op's command line asks beyond who and where: the game, local checks, the wait, the output."""

    name: str
    validate: bool
    """Check the name and refuse locally what the processor would (not ``--no-validate``)."""
    wait: float | None
    output: str

    @classmethod
    def of(cls, args: argparse.Namespace) -> Sending:
        """From ``NAME``, ``--no-validate``, ``--wait`` and ``--json``."""
        return cls(args.name, not args.no_validate, args.wait, args.format)


def create(args: argparse.Namespace) -> int:
    """``rps create NAME [--first-to N] [--timeout SECONDS] [--no-join]``."""
    sending, join = Sending.of(args), not args.no_join
    given = settings_given(args.first_to, args.timeout, None)
    return send(Caller.of(args), sending, lambda _game: Create(sending.name, join=join, settings=given))


def join(args: argparse.Namespace) -> int:
    """``rps join NAME``: the first to join a game hosts it."""
    sending = Sending.of(args)
    return send(Caller.of(args), sending, lambda game: Join(sending.name, signed_for(game)))


def setup(args: argparse.Namespace) -> int:
    """``rps setup NAME [--first-to N] [--timeout SECONDS]``: the host's new settings; what is not given is kept."""
    first_to, timeout = args.first_to, args.timeout
    if first_to is None and timeout is None:
        raise UsageError("rps setup needs --first-to or --timeout (or both): the settings to change")
    sending = Sending.of(args)
    return send(
        Caller.of(args),
        sending,
        lambda game: Setup(sending.name, signed_for(game), settings_given(first_to, timeout, game) or DEFAULT_SETTINGS),
    )


def ready(args: argparse.Namespace) -> int:
    """``rps ready NAME``: agree to the settings the game has now (the processor refuses if they change meanwhile)."""
    sending = Sending.of(args)
    return send(
        Caller.of(args),
        sending,
        lambda game: Ready(sending.name, signed_for(game), game.settings if game is not None else DEFAULT_SETTINGS),
    )


def resign(args: argparse.Namespace) -> int:
    """``rps resign NAME``: give the game up; the opponent wins."""
    sending = Sending.of(args)
    return send(Caller.of(args), sending, lambda game: Resign(sending.name, signed_for(game)))


def claim(args: argparse.Namespace) -> int:
    """``rps claim NAME``: win a game whose opponent has not taken their step within its time-out."""
    sending = Sending.of(args)
    return send(Caller.of(args), sending, lambda game: Claim(sending.name, signed_for(game)))


def delete(args: argparse.Namespace) -> int:
    """``rps delete NAME``: the host removes a game that is not being played."""
    sending = Sending.of(args)
    return send(Caller.of(args), sending, lambda game: Delete(sending.name, signed_for(game)))


def settings_given(first_to: int | None, timeout: int | None, game: Game | None) -> Settings | None:
    """``--first-to`` and ``--timeout`` over the game's settings (the defaults without a game); ``None`` if neither."""
    if first_to is None and timeout is None:
        return None
    base = game.settings if game is not None else DEFAULT_SETTINGS
    return Settings(base.points if first_to is None else first_to, base.timeout if timeout is None else timeout)


def send(caller: Caller, sending: Sending, make_op: OpMaker) -> int:
    """One op, from the command line to its outcome. Local checks first, so a typo costs no request."""
    name = sending.name
    if sending.validate and (problem := impossible_name(name)):
        raise InvalidInput(problem)
    signer = caller.who.signer("rps")
    you = signer.public_key
    with sigterm_interrupts(), caller.where.rest_client() as client:
        game = read_game(client, name, lenient=not sending.validate)
        op = make_op(game)
        if sending.validate:
            now = claim_time(client) if isinstance(op, Claim) else None
            refused = refusal(game, op, you, now)
            if refused:
                raise InvalidInput(f"{refused}; nothing was submitted")
        transaction = make_rps_transaction(signer, op)
        batch_id = submit(client, signer, [transaction])
        what = describe(op)
        if sending.wait is None:
            submitted = op_json(op, batch_id, "SUBMITTED")
            print(submitted if sending.output == "json" else say(f"Submitted {what}: batch {batch_id}"))
            return 0
        outcome = await_outcome(client, batch_id, sending.wait)
        require_committed(outcome, what, batch_id, sending.wait)
        found, after = resulting_game(client, transaction.header_signature, name)
    if found and (after is None or after.state == CONCLUDED):
        forget_spent(caller.who, you, name, after)
    if sending.output == "json":
        print(op_json(op, batch_id, "COMMITTED", game_json(after) if after is not None else None))
        return 0
    print(say(f"Committed {what}: batch {batch_id}"))
    if found and after is not None:
        print(say(f"{game_label(name)}: {standing(after, you, caller.who.key_names())}"))
    return 0


def forget_spent(who: Who, you: str, name: str, game: Game | None) -> None:
    """A game over or gone leaves nothing to reveal: drop its entries from the vault (a warning if it cannot be)."""
    try:
        Vault.of(who.key_dir, you).forget(spent_in(name, game))
    except VaultProblem as problem:
        warn("rps", problem.message)


def standing(game: Game, you: str, names: KeyNames) -> str:
    """Where a game stands, said to the player: its result once over, else what it waits for."""
    if game.state == CONCLUDED:
        return f"over: {outcome_text(game, you, names)}"
    return render.next_text(game, you, names)


def op_json(op: Op, batch_id: str, status: str, game: dict[str, object] | None = None) -> str:
    """``--json`` of an op: what was sent, the batch, and (once committed) the game it left, null after a delete."""
    document: dict[str, object] = {"op": op.NAME, "name": op.name, "batch_id": batch_id, "status": status}
    if status == "COMMITTED":
        document["game"] = game
    return json.dumps(document, indent=2)
