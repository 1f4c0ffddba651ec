"""The command line of ``xo chain blocks|transactions``: how many, which family, JSON for scripts.

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
  xo chain blocks                            the newest 20 blocks: signer, batches, transactions, families
  xo chain transactions --family chips       what staked matches cost on chain, newest first
  xo chain transactions --limit 0 --json     every transaction, for scripts"""


def limit(text: str) -> int:
    """``--limit N``: a whole number; 0 for every one."""
    if not text.isascii() or not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number (0 for all), got {text!r}")
    return int(text)


def add_chain_commands(
    subcommands: argparse._SubParsersAction, rest: argparse.ArgumentParser, output: argparse.ArgumentParser
) -> None:
    """``xo chain blocks`` and ``xo chain transactions``."""
    group = subcommands.add_parser(
        GROUP,
        help="list the chain's blocks or transactions, in words",
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
        help="the newest blocks: number, id, batches, transactions, signer, families",
        description="List the newest blocks: number, id, how many batches and transactions, the signer (the "
        "validator), and the families of its transactions.",
    )
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
