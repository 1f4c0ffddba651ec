"""``chips balance``, ``chips issue`` and ``chips transfer``: accounts on the chain."""

from __future__ import annotations

import argparse
import json

from chips_cli import context
from chips_client import checks
from chips_client import transactions as tx
from chips_client.faucet import ask
from client_core import session
from client_core.errors import InvalidInput
from client_core.keys import key_label


def balance(args: argparse.Namespace) -> int:
    """``chips balance [NAME]``: the account's free chips."""
    key = context.signer(args).public_key if args.player is None else context.player(args, args.player)
    with context.chain(args, None) as chain:
        chips = chain.balance(key)
    name = session.key_names(args).name(key)
    if args.format == "json":
        print(json.dumps({"key": key, "name": name, "balance": chips}))
    else:
        print(f"{key_label(key, session.key_names(args))}: {chips} chips")
    return 0


def faucet(args: argparse.Namespace) -> int:
    """``chips faucet [--amount N]``: chips for your key from xo-devnet's faucet; elsewhere, whom to ask."""
    key = context.signer(args).public_key
    with session.rest_client(args) as client:
        given = ask(client, key, args.amount)
    if args.format == "json":
        print(json.dumps(given._asdict()))
    else:
        print(f"the faucet issued {given.amount} chips to {key_label(key, session.key_names(args))}: you now hold "
              f"{given.balance} free chips (it gives a key at most {given.per_key_per_hour} chips in any hour)")
    return 0


def issue(args: argparse.Namespace) -> int:
    """``chips issue NAME AMOUNT``: an issuer creates chips."""
    return _send(args, "issue")


def transfer(args: argparse.Namespace) -> int:
    """``chips transfer NAME AMOUNT``: give chips."""
    return _send(args, "transfer")


def _send(args: argparse.Namespace, op: str) -> int:
    signer = context.signer(args)
    to = context.player(args, args.player)
    make = tx.issue if op == "issue" else tx.transfer
    with context.chain(args, signer) as chain:
        if not args.no_validate:
            me, amount = signer.public_key, args.amount
            if op == "issue":
                problem = checks.issue_refusal(chain.account(to), me, to, amount, chain.issuers())
            else:
                problem = checks.transfer_refusal(chain.account(me), chain.account(to), me, to, amount)
            if problem:
                raise InvalidInput(f"{problem}; nothing was submitted")
        batch = chain.submit_all([make(signer, to, args.amount)], f"the {op}")
        now = chain.balance(to)
    names = session.key_names(args)
    if args.format == "json":
        print(json.dumps({"op": op, "to": to, "amount": args.amount, "balance": now, "batch": batch}))
    else:
        verb = "issued" if op == "issue" else "sent"
        print(f"{verb} {args.amount} chips to {key_label(to, names)}, who now holds {now}")
    return 0
