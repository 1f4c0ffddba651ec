"""The command line of ``xo chain blocks|transactions|block|transaction``: how many, which family, which one.

Kept apart from :mod:`xo_cli.arguments`, as ``web``, ``aries`` and ``ratings`` are, so the group's
flags read as one unit.
"""

from __future__ import annotations

import argparse

from client_core.arguments import CommandParser

GROUP = "chain"
DEFAULT_LIMIT = 20

CHAIN_EXAMPLES = """\
examples:
  xo chain blocks                            the newest 20 blocks: time, signer, batches, transactions, families
  xo chain transactions --family chips       what staked matches cost on chain, newest first
  xo chain transactions --limit 0 --json     every transaction, for scripts
  xo chain block 6                           one block: time, signer, state root, each transaction in words
  xo chain transaction d98781104bdc882b...   one transaction: what it did, its block, the state it changed"""


def limit(text: str) -> int:
    """``--limit N``: a whole number; 0 for every one."""
    if not text.isascii() or not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number (0 for all), got {text!r}")
    return int(text)


def add_chain_commands(
    subcommands: argparse._SubParsersAction, rest: argparse.ArgumentParser, output: argparse.ArgumentParser
) -> None:
    """``xo chain blocks``, ``xo chain transactions``, ``xo chain block`` and ``xo chain transaction``."""
    group = subcommands.add_parser(
        GROUP,
        help="the chain's blocks and transactions, in words: lists, or one of them",
        description="Look at the chain, newest first, as 'sawtooth block list' and 'sawtooth transaction list' do: "
        "each transaction said by its own family (xo take game1 5, rps commit match round 1, chips open ...), "
        "signers by their names in the key directory.",
        epilog=CHAIN_EXAMPLES,
    )
    actions = group.add_subparsers(dest="chain_command", metavar="ACTION", parser_class=CommandParser)
    actions.required = True
    how_many = argparse.ArgumentParser(add_help=False)
    how_many.add_argument(
        "--limit", type=limit, default=DEFAULT_LIMIT, metavar="N",
        help=f"the newest N only (default: {DEFAULT_LIMIT}; 0: all)",
    )  # fmt: skip
    actions.add_parser(
        "blocks",
        parents=[rest, output, how_many],
        help="the newest blocks: number, time, id, batches, transactions, signer, families",
        description="List the newest blocks: number, time (UTC, from the BlockInfo each block opens with), id, "
        "how many batches and transactions, the signer (the validator), and the families of its transactions.",
    )
    one_block = actions.add_parser(
        "block",
        parents=[rest, output],
        help="one block: time, signer, state root, its batches and transactions in words",
        description="Show one block, by number or id (whole, or shortened as 'xo chain blocks' prints it): its "
        "time, signer, previous block, state root, and each transaction of each batch, in words.",
    )
    one_block.add_argument("block", metavar="ID|NUM", help="the block's number, or its id (6 hex digits or more)")
    one_transaction = actions.add_parser(
        "transaction",
        parents=[rest, output],
        help="one transaction: what it did, who signed it, its block, the state it changed",
        description="Show one committed transaction, by id (whole, or shortened as 'xo chain transactions' prints "
        "it): its family, what it did in words, its signer, the block and batch that hold it, and its outcome, "
        "the addresses of state it set or deleted.",
    )
    one_transaction.add_argument("transaction", metavar="ID", help="the transaction's id (6 hex digits or more)")
    listing = actions.add_parser(
        "transactions",
        parents=[rest, output, how_many],
        help="the newest transactions, each in words",
        description="List the newest transactions: block, id, signer and what each did, in words.",
    )
    listing.add_argument("--family", metavar="F", help="only the transactions of family F (xo, rps, chips, ...)")


def full_chain_command(args: argparse.Namespace) -> argparse.Namespace:
    """Fold the group's action into ``command``: ``chain`` + ``blocks`` -> ``chain blocks``."""
    if args.command == GROUP:
        args.command = f"{GROUP} {args.chain_command}"
        del args.chain_command
    return args
