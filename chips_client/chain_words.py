"""A chips transaction on the chain in words, decoded with the family's own codec: ``chips open 7eadee1d ...``.

A channel is named by the first characters of its id, as ``chips list`` shows it: the name its players
gave it is theirs, never on the chain. A tournament is named by its name, quoted and escaped (anyone chose it).
"""

from __future__ import annotations

from sawtooth_sdk.processor.exceptions import InvalidTransaction

from chips_tp.channel import Fixed, channel_id
from chips_tp.family import FAMILY_NAME
from chips_tp.ops import Issue, Open, Transfer
from chips_tp.payload import parse_payload
from chips_tp.tournament import SWISS
from chips_tp.tournament_ops import Advance, Create, Enter, Leave, Result, Start
from client_core.blocks import ChainTransaction
from client_core.chain_words import Namer, unreadable
from xo_core.text import quoted

SHOWN_ID = 8
"""Hex digits of a channel id shown, as ``chips list`` shows them."""


def words(transaction: ChainTransaction, name: Namer) -> str:
    """``chips issue 500 to alice``, ``chips open 7eadee1d: xo with bob, stake 10, deposits 50 and 50``, ..."""
    try:
        op = parse_payload(transaction.payload)
    except InvalidTransaction as error:
        return unreadable(FAMILY_NAME, str(error))
    match op:
        case Issue() | Transfer():
            return f"{FAMILY_NAME} {op.NAME} {op.amount:,} to {name(op.to)}"
        case Open():
            fixed = Fixed((transaction.signer, op.opponent), op.app, op.stake, op.deposits, op.duration, op.nonce)
            first, second = op.deposits
            terms = f"{op.app} with {name(op.opponent)}, stake {op.stake:,}, deposits {first:,} and {second:,}"
            return f"{FAMILY_NAME} open {channel_id(fixed).hex()[:SHOWN_ID]}: {terms}"
        case Create():
            rounds = f"swiss of {op.rounds} rounds" if op.format == SWISS else "knockout"
            prizes = "/".join(str(p) for p in op.prizes)
            game = f"{op.game} first to {op.first_to}" if op.first_to else op.game
            return (f"{FAMILY_NAME} create tournament {quoted(op.name)}: {game} {rounds}, buy-in {op.buy_in:,}, "
                    f"{op.players[0]}..{op.players[1]} players, prizes {prizes}")  # fmt: skip
        case Enter():
            return f"{FAMILY_NAME} enter tournament {quoted(op.tournament)}, buy-in {op.buy_in:,}"
        case Result():
            return f"{FAMILY_NAME} result of tournament {quoted(op.tournament)}, round {op.round} board {op.board}"
        case Leave() | Start() | Advance():
            return f"{FAMILY_NAME} {op.NAME} tournament {quoted(op.tournament)}"
    return f"{FAMILY_NAME} {op.NAME} {op.channel.hex()[:SHOWN_ID]}"
