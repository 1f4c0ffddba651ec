"""``chips balance``, ``chips issue`` and ``chips transfer``: accounts on the chain."""

from __future__ import annotations

import argparse
import json

from chips_cli import context
from chips_client import checks
from chips_client import transactions as tx
from chips_client.faucet import ask
from client_core.caller import Caller
from client_core.errors import InvalidInput
from client_core.keys import key_label


def balance(args: argparse.Namespace) -> int:
    """``chips balance [NAME]``: the account's free chips."""
    caller = Caller.of(args)
    key = context.signer(caller.who).public_key if args.player is None else context.player(caller.who, args.player)
    with context.chain(caller.where, None, None) as chain:
        chips = chain.balance(key)
    name = caller.who.key_names().name(key)
    if args.format == "json":
        print(json.dumps({"key": key, "name": name, "balance": chips}))
    else:
        print(f"{key_label(key, caller.who.key_names())}: {chips} chips")
    return 0


def faucet(args: argparse.Namespace) -> int:
    """``chips faucet [--amount N]``: chips for your key from xo-devnet's faucet; elsewhere, whom to ask."""
    caller = Caller.of(args)
    key = context.signer(caller.who).public_key
    with caller.where.rest_client() as client:
        given = ask(client, key, args.amount)
    if args.format == "json":
        print(json.dumps(given._asdict()))
    else:
        print(f"the faucet issued {given.amount} chips to {key_label(key, caller.who.key_names())}: you now hold "
              f"{given.balance} free chips (it gives a key at most {given.per_key_per_hour} chips in any hour)")
    return 0


def issue(args: argparse.Namespace) -> int:
    """``chips issue NAME AMOUNT``: an issuer creates chips."""
    return _send(Caller.of(args), "issue", args.player, args.amount, validate=not args.no_validate, wait=args.wait,
                 output=args.format)


def transfer(args: argparse.Namespace) -> int:
    """``chips transfer NAME AMOUNT``: give chips."""
    return _send(Caller.of(args), "transfer", args.player, args.amount, validate=not args.no_validate, wait=args.wait,
                 output=args.format)


def _send(
    caller: Caller, op: str, to_player: str, amount: int, *, validate: bool, wait: float | None, output: str
) -> int:
    signer = context.signer(caller.who)
    to = context.player(caller.who, to_player)
    make = tx.issue if op == "issue" else tx.transfer
    with context.chain(caller.where, signer, wait) as chain:
        if validate:
            me = signer.public_key
            if op == "issue":
                problem = checks.issue_refusal(chain.account(to), me, to, amount, chain.issuers())
            else:
                problem = checks.transfer_refusal(chain.account(me), chain.account(to), me, to, amount)
            if problem:
                raise InvalidInput(f"{problem}; nothing was submitted")
        batch = chain.submit_all([make(signer, to, amount)], f"the {op}")
        now = chain.balance(to)
    names = caller.who.key_names()
    if output == "json":
        print(json.dumps({"op": op, "to": to, "amount": amount, "balance": now, "batch": batch}))
    else:
        verb = "issued" if op == "issue" else "sent"
        print(f"{verb} {amount} chips to {key_label(to, names)}, who now holds {now}")
    return 0
