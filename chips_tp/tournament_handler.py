"""The tournament ops as the processor applies them: the record, accounts and channels read, the rules applied,
everything written in one request, and one event ``chips/<op>``.

``start`` and ``advance`` may write any channel and pay any player, so their
transactions list the account and channel prefixes; ``result`` lists the one channel
of its pairing. What the rules decide is in :mod:`chips_tp.tournament_rules`.
"""

from collections.abc import Callable

from sawtooth_sdk.processor.exceptions import AuthorizationException, InternalError, InvalidTransaction

from chips_tp import tournament_rules as rules
from chips_tp.channel import channel_id
from chips_tp.family import account_address, channel_address, tournament_address
from chips_tp.rules import credited
from chips_tp.state import Account, decode_account, decode_channel, encode_account, encode_channel
from chips_tp.support import Refused
from chips_tp.tournament import Tournament
from chips_tp.tournament_ops import Advance, Create, Enter, Leave, Result, Start, TournamentOp
from chips_tp.tournament_state import decode_tournament, encode_tournament
from tp_runtime.clock import newest_block
from tp_runtime.handler_api import StateContext, read_entries, read_entry, write_entries
from xo_core.text import quoted

EVENT_PREFIX = "chips/"


def apply_tournament(op: TournamentOp, signer: str, context: StateContext, floor: Callable[[], int]) -> None:
    """Apply one tournament op; ``floor`` reads the network's shortest challenge duration (for ``create``)."""
    found = _tournament(context, op.name if isinstance(op, Create) else op.tournament)
    entries: dict[str, bytes | None] = {}
    if isinstance(op, Create):
        tournament = rules.create(found, op, signer, _now(context, op.NAME), floor())
    else:
        if found is None:
            raise Refused(f"there is no tournament {quoted(op.tournament)}: 'chips tournament list' shows them")
        tournament, entries = _apply(op, found, signer, context)
    entries[tournament_address(tournament.name)] = encode_tournament(tournament)
    write_entries(context, entries)
    attributes = [("tournament", tournament.name), ("status", tournament.status), ("round", str(tournament.round)),
                  ("signer", signer)]  # fmt: skip
    context.add_event(EVENT_PREFIX + op.NAME, attributes, entries[tournament_address(tournament.name)])


def _apply(
    op: TournamentOp, tournament: Tournament, signer: str, context: StateContext
) -> tuple[Tournament, dict[str, bytes | None]]:
    """The record after ``op`` and the other entries it writes (accounts, channels)."""
    match op:
        case Enter():
            account = _account(context, signer)
            tournament, left = rules.enter(tournament, account, op, signer, _now(context, op.NAME))
            return tournament, {account_address(signer): None if left is None else encode_account(left)}
        case Leave():
            tournament, refunded = rules.leave(tournament, _account(context, signer), signer)
            return tournament, {account_address(signer): encode_account(refunded)}
        case Result():
            fixed = rules.result_fixed(tournament, op)
            address = channel_address(channel_id(fixed))
            try:
                channel = decode_channel(address, read_entry(context, address))
            except AuthorizationException:
                raise InvalidTransaction(
                    f"a result reads the channel of its pairing: list {address} in the transaction's inputs"
                ) from None
            return rules.record(tournament, op, channel), {}
        case Start():
            block = newest_block(context, op.NAME)
            if block is None:
                raise Refused("a start needs a clock, and this network keeps no BlockInfo")
            return _changed(rules.start(tournament, block.timestamp, block.header_signature), context)
        case Advance():
            return _changed(rules.advance(tournament, _now(context, op.NAME)), context)
    raise InternalError(f"no rule for the op {op.NAME}")


def _changed(change: rules.Change, context: StateContext) -> tuple[Tournament, dict[str, bytes | None]]:
    """The entries of a start or an advance: its new channels (where nothing was) and the players paid."""
    entries: dict[str, bytes | None] = {}
    try:
        addresses = [channel_address(channel.id) for channel in change.channels]
        taken = read_entries(context, addresses)
        keys = [key for key, paid in change.paid if paid]
        held = read_entries(context, [account_address(key) for key in keys])
    except AuthorizationException:
        raise InvalidTransaction(
            "a start or an advance writes channels and pays players: list the prefixes of chips accounts and channels "
            "in the transaction's inputs and outputs"
        ) from None
    for address, channel in zip(addresses, change.channels, strict=True):
        if taken.get(address):
            raise InternalError(f"the address of the tournament's channel {channel.id.hex()} holds a record already")
        entries[address] = encode_channel(channel)
    for key, paid in change.paid:
        if paid:
            address = account_address(key)
            account = decode_account(address, held.get(address, b""), key)
            entries[address] = encode_account(credited(account, key, paid))
    return change.tournament, entries


def _now(context: StateContext, op_name: str) -> int:
    block = newest_block(context, op_name)
    if block is None:
        raise Refused(f"a {op_name} needs a clock, and this network keeps no BlockInfo")
    return block.timestamp


def _account(context: StateContext, key: str) -> Account | None:
    address = account_address(key)
    try:
        return decode_account(address, read_entry(context, address), key)
    except AuthorizationException:
        raise InvalidTransaction(
            f"this op moves the signer's chips: list {address} in its inputs and outputs"
        ) from None


def _tournament(context: StateContext, name: str) -> Tournament | None:
    address = tournament_address(name)
    try:
        return decode_tournament(address, read_entry(context, address))
    except AuthorizationException:
        raise InvalidTransaction(
            f"the tournament's address {address} is not in the transaction's inputs and outputs"
        ) from None
