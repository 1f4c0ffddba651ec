"""The chips family as a Sawtooth ``TransactionHandler``: records read, rules applied, records and an event written.

It speaks only the SDK's handler and context interfaces (through
:mod:`tp_runtime.handler_api`), so it runs under this project's processor runtime and
under the official SDK processor alike.
"""

from typing import Final

from sawtooth_sdk.processor.exceptions import AuthorizationException, InternalError, InvalidTransaction

from chips_tp import rules
from chips_tp.channel import MIN_CHALLENGE_SETTING, Fixed, channel_id, min_duration
from chips_tp.family import (
    FAMILY_NAME,
    FAMILY_VERSION,
    ISSUERS_ADDRESS,
    ISSUERS_SETTING,
    MIN_CHALLENGE_ADDRESS,
    NAMESPACE,
    account_address,
    channel_address,
)  # fmt: skip
from chips_tp.ops import Cancel, Challenge, Checkpoint, Conclude, Finalize, Issue, Join, Op, Open, Respond, Transfer
from chips_tp.payload import parse_payload
from chips_tp.state import CLOSED, Account, Channel, decode_account, decode_channel, encode_account, encode_channel
from chips_tp.tournament import is_tournament_channel
from chips_tp.tournament_handler import apply_tournament
from chips_tp.tournament_ops import TOURNAMENT_OPS
from tp_runtime.clock import current_time
from tp_runtime.handler_api import (
    FamilyHandler,
    ProcessRequest,
    StateContext,
    check_signer,
    read_entries,
    read_entry,
    write_entries,
)  # fmt: skip
from xo_core.settings import CorruptSetting, listed, setting_value
from xo_core.text import quoted

EVENT_PREFIX: Final = "chips/"


class ChipsTransactionHandler(FamilyHandler):
    """Applies the ten chips ops; each applied transaction emits one event ``chips/<op>``.

    Account ops: attributes ``account`` (the credited key) and ``signer``, data the
    credited account's record. Channel ops: ``channel`` (id in hex), ``status``,
    ``turn`` and ``signer``, data the channel's record.
    """

    FAMILY_NAME = FAMILY_NAME
    FAMILY_VERSION = FAMILY_VERSION
    NAMESPACE = NAMESPACE

    def apply(self, transaction: ProcessRequest, context: StateContext) -> None:
        """Apply one chips transaction; ``InvalidTransaction`` for a refused op, ``InternalError`` for bad state."""
        op = parse_payload(transaction.payload)
        signer = transaction.header.signer_public_key
        check_signer(signer, lambda key: quoted(key, None))
        if isinstance(op, Issue | Transfer):
            _account_op(op, signer, context)
        elif isinstance(op, TOURNAMENT_OPS):
            apply_tournament(op, signer, context, lambda: _floor(context))
        else:
            _channel_op(op, signer, context)


def _account_op(op: Issue | Transfer, signer: str, context: StateContext) -> None:
    """An issue or a transfer: the accounts it changes written, and its event."""
    if isinstance(op, Issue):
        credited = rules.issue(_accounts(context, op.to)[op.to], op, signer, _issuers(context))
        changed = {op.to: credited}
    else:
        accounts = _accounts(context, signer, op.to)
        sender, credited = rules.transfer(accounts[signer], accounts[op.to], op, signer)
        changed = {signer: sender, op.to: credited}
    _write_accounts(context, changed)
    context.add_event(EVENT_PREFIX + op.NAME, [("account", op.to), ("signer", signer)], encode_account(credited))


def _channel_op(op: Op, signer: str, context: StateContext) -> None:
    """A channel op: the channel (and, on a payout, both accounts) written in one request, and its event."""
    if isinstance(op, Open):
        identity = channel_id(Fixed((signer, op.opponent), op.app, op.stake, op.deposits, op.duration, op.nonce))
        existing = _channel(context, identity)
        channel, account = rules.open_channel(existing, _accounts(context, signer)[signer], op, signer, _floor(context))
        changed: dict[str, Account | None] = {signer: account}
    else:
        found = _channel(context, op.channel)
        if found is None:
            raise rules.Refused(f"there is no channel {op.channel.hex()}")
        channel, changed = _play(op, found, signer, context)
    if channel.status == CLOSED and channel.payout is not None and not is_tournament_channel(channel.fixed):
        keys = channel.fixed.participants
        accounts = _accounts(context, *keys)
        changed = {key: rules.credited(accounts[key], key, paid) for key, paid in zip(keys, channel.payout, strict=True)
                   if paid}  # fmt: skip
    data = encode_channel(channel)
    write_entries(context, {channel_address(channel.id): data, **_account_entries(changed)})
    attributes = [("channel", channel.id.hex()), ("status", channel.status), ("turn", str(channel.turn)),
                  ("signer", signer)]  # fmt: skip
    context.add_event(EVENT_PREFIX + op.NAME, attributes, data)


def _play(op: Op, channel: Channel, signer: str, context: StateContext) -> tuple[Channel, dict[str, Account | None]]:
    """The channel after ``op`` (not an open) and the accounts it changed; reads the time only if the op may need it."""
    now = current_time(context, op.NAME) if isinstance(op, Challenge | Finalize) or channel.challenge else None
    match op:
        case Join():
            # Only participants' accounts are in a channel op's inputs; anyone else is refused by the rule.
            participant = signer in channel.fixed.participants
            account = _accounts(context, signer)[signer] if participant else None
            channel, account = rules.join(channel, account, op, signer)
            return channel, {signer: account}
        case Cancel():
            return rules.cancel(channel, op, signer), {}
        case Conclude():
            return rules.conclude(channel, op, signer, now), {}
        case Challenge():
            return rules.challenge(channel, op, signer, now), {}
        case Checkpoint():
            return rules.checkpoint(channel, op, signer, now), {}
        case Respond():
            return rules.respond(channel, op, signer, now), {}
        case Finalize():
            return rules.finalize(channel, op, now), {}
    raise InternalError(f"no rule for the op {op.NAME}")


def _issuers(context: StateContext) -> list[str]:
    """The keys in ``chips.issuers``, read as Sawtooth's settings family stores the setting."""
    try:
        return listed(setting_value(read_entry(context, ISSUERS_ADDRESS), ISSUERS_SETTING))
    except AuthorizationException:
        raise InvalidTransaction(
            f"an issue reads the setting {ISSUERS_SETTING}: list {ISSUERS_ADDRESS} in its inputs"
        ) from None
    except CorruptSetting as error:
        raise InternalError(str(error)) from None


def _floor(context: StateContext) -> int:
    """The shortest challenge duration an open may fix: ``chips.min_challenge_seconds``, read as ``chips.issuers``."""
    try:
        value = setting_value(read_entry(context, MIN_CHALLENGE_ADDRESS), MIN_CHALLENGE_SETTING)
    except AuthorizationException:
        raise InvalidTransaction(
            f"an open reads the setting {MIN_CHALLENGE_SETTING}: list {MIN_CHALLENGE_ADDRESS} in its inputs"
        ) from None
    except CorruptSetting as error:
        raise InternalError(str(error)) from None
    try:
        return min_duration(value)
    except ValueError as error:
        raise InvalidTransaction(str(error)) from None


def _accounts(context: StateContext, *keys: str) -> dict[str, Account | None]:
    """The accounts of ``keys``, read in one request."""
    addresses = [account_address(key) for key in keys]
    data = read_entries(context, addresses)
    return {key: decode_account(address, data[address], key) for key, address in zip(keys, addresses, strict=True)}


def _account_entries(accounts: dict[str, Account | None]) -> dict[str, bytes | None]:
    """State entries for ``accounts`` by key: an account left empty is deleted."""
    return {
        account_address(key): None if account is None else encode_account(account) for key, account in accounts.items()
    }


def _write_accounts(context: StateContext, accounts: dict[str, Account | None]) -> None:
    """Write ``accounts`` in one request (an emptied one deleted)."""
    write_entries(context, _account_entries(accounts))


def _channel(context: StateContext, identity: bytes) -> Channel | None:
    """The channel ``identity``, or None; a transaction that did not list its address is refused saying so."""
    address = channel_address(identity)
    try:
        data = read_entry(context, address)
    except AuthorizationException:
        raise InvalidTransaction(
            f"the channel's address {address} is not in the transaction's inputs: an open lists the address of the "
            "channel its signer opens, as participant 0"
        ) from None
    return decode_channel(address, data)
