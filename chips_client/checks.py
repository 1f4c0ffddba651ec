"""What chips-tp would refuse, found before anything is signed: the processor's own rules, run on the chain's records.

``chips transfer``, ``issue``, ``open`` and ``join`` (and the page) read the records a
transaction would touch and ask :mod:`chips_tp.rules` itself, so a refusal before
submitting is word for word the one the validator would give, and the two can never
disagree. Pure: the callers read the records.
"""

from __future__ import annotations

from collections.abc import Callable

from chips_tp import rules
from chips_tp.channel import Fixed, channel_id
from chips_tp.ops import Issue, Join, Open, Transfer
from chips_tp.state import Account, Channel


def refusal(rule: Callable[[], object]) -> str | None:
    """The words chips-tp refuses with if ``rule`` (one of :mod:`chips_tp.rules`, applied) refuses, else None."""
    try:
        rule()
    except rules.Refused as refused:
        return str(refused)
    return None


def transfer_refusal(
    sender: Account | None, recipient: Account | None, signer: str, to: str, amount: int
) -> str | None:
    """Why chips-tp would refuse ``signer``'s transfer of ``amount`` to ``to``, given both accounts, or None."""
    return refusal(lambda: rules.transfer(sender, recipient, Transfer(to, amount), signer))


def issue_refusal(account: Account | None, signer: str, to: str, amount: int, issuers: list[str]) -> str | None:
    """Why chips-tp would refuse ``signer``'s issue of ``amount`` to ``to`` (whose account is ``account``), or None."""
    return refusal(lambda: rules.issue(account, Issue(to, amount), signer, issuers))


def open_refusal(existing: Channel | None, account: Account | None, fixed: Fixed, floor: int) -> str | None:
    """Why chips-tp would refuse the opener's open of ``fixed`` where challenges last at least ``floor`` seconds."""
    opener, opponent = fixed.participants
    op = Open(opponent, fixed.app, fixed.stake, fixed.deposits, fixed.duration, fixed.nonce)
    return refusal(lambda: rules.open_channel(existing, account, op, opener, floor))


def join_refusal(channel: Channel, account: Account | None, signer: str) -> str | None:
    """Why chips-tp would refuse ``signer``'s join of ``channel`` as it stands (its ``held`` as expected), or None."""
    return refusal(lambda: rules.join(channel, account, Join(channel_id(channel.fixed), channel.held), signer))
