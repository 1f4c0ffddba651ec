"""The rules of chips accounts and channels: pure functions from records and an op to new records.

Every refusal is a :class:`Refused` (the SDK's ``InvalidTransaction``) saying why. A
channel pays out only what it holds: every payout is checked against the chips held
(``InternalError`` if it ever differed, for that would be a bug, not a player's doing),
and the turn number the chain records never goes down.
"""

from sawtooth_sdk.processor.exceptions import InternalError

from chips_tp.apps import APPS
from chips_tp.channel import MAX_AMOUNT, Fixed, channel_id, fixed_problem, mover, short
from chips_tp.channel_state import State, encode_state
from chips_tp.hashes import challenge_message, signed_by
from chips_tp.ops import Cancel, Challenge, Checkpoint, Conclude, Finalize, Issue, Join, Open, Respond, Transfer
from chips_tp.state import CLOSED, FUNDING, RUNNING, Account, ChallengeRecord, Channel
from chips_tp.support import Refused, read_state, signers, supported, transition_problem
from xo_core.text import counted

__all__ = ["Refused"]


def balance_of(account: Account | None) -> int:
    """The chips in ``account``; an account never written holds none."""
    return 0 if account is None else account.balance


def credited(account: Account | None, key: str, amount: int) -> Account:
    """``account`` (of ``key``) with ``amount`` more chips; an overflow past :data:`MAX_AMOUNT` is refused."""
    balance = balance_of(account) + amount
    if balance > MAX_AMOUNT:
        raise Refused(f"the account {short(key)} would hold more than {MAX_AMOUNT} chips (overflow)")
    return Account(key, balance)


def debited(account: Account | None, key: str, amount: int, what: str) -> Account | None:
    """``account`` with ``amount`` fewer chips (None when it is left empty); refused if it has too few."""
    balance = balance_of(account)
    if balance < amount:
        raise Refused(f"{what} needs {amount} chips but the account {short(key)} holds {balance}")
    return Account(key, balance - amount) if balance > amount else None


def issue(account: Account | None, op: Issue, signer: str, issuers: list[str]) -> Account:
    """An issuer (a key in ``chips.issuers``) creates chips in ``op.to``'s account."""
    if signer not in issuers:
        listed = "no key is listed" if not issuers else counted(len(issuers), "key is listed", "keys are listed")
        raise Refused(
            f"only the keys in the setting chips.issuers may issue chips; {short(signer)} is not one ({listed})"
        )
    return credited(account, op.to, op.amount)


def transfer(
    sender: Account | None, recipient: Account | None, op: Transfer, signer: str
) -> tuple[Account | None, Account]:
    """The signer's chips to ``op.to``; refused for more than the signer holds, or to themself."""
    if op.to == signer:
        raise Refused("a transfer to yourself moves nothing")
    return debited(sender, signer, op.amount, "the transfer"), credited(recipient, op.to, op.amount)


def open_channel(
    existing: Channel | None, account: Account | None, op: Open, signer: str, floor: int
) -> tuple[Channel, Account | None]:
    """A new channel between the signer (participant 0) and ``op.opponent``, holding the signer's deposit.

    The opener pays in at once, so a whole match is three transactions: open, join, conclude.
    Its challenge duration is at least ``floor`` seconds (the setting ``chips.min_challenge_seconds``).
    """
    fixed = Fixed((signer, op.opponent), op.app, op.stake, op.deposits, op.duration, op.nonce)
    problem = fixed_problem(fixed, floor)
    if problem:
        raise Refused(f"cannot open the channel: {problem}")
    identity = channel_id(fixed)
    if existing is not None:
        raise Refused(f"channel {identity.hex()} already exists ({existing.status}); open with another nonce")
    account = debited(account, signer, op.deposits[0], f"the deposit into channel {short(identity.hex())}")
    return Channel(identity, fixed, FUNDING, (True, False), op.deposits[0], 0, None, None, None), account


def join(channel: Channel, account: Account | None, op: Join, signer: str) -> tuple[Channel, Account | None]:
    """The opponent's deposit, if the channel holds ``op.expected_held``: the channel runs from turn 0."""
    seat = _participant(channel, signer, "join")
    if seat != 1:
        raise Refused(f"you opened channel {_label(channel)} and paid your deposit then; only your opponent joins it")
    if channel.status != FUNDING:
        raise Refused(f"channel {_label(channel)} is {channel.status}: it is joined only while it is funding")
    if channel.held != op.expected_held:
        raise Refused(
            f"channel {_label(channel)} holds {channel.held} chips, not the {op.expected_held} you expected: "
            "it changed since you looked; look again and join with what it holds"
        )
    deposit = channel.fixed.deposits[1]
    account = debited(account, signer, deposit, f"the deposit into channel {_label(channel)}")
    app = APPS[channel.fixed.app]
    first = State(channel.id, 0, False, app.initial, channel.fixed.deposits)
    channel = channel._replace(
        status=RUNNING, funded=(True, True), held=channel.held + deposit, turn=0, state=encode_state(first, app.encode)
    )
    return channel, account


def cancel(channel: Channel, op: Cancel, signer: str) -> Channel:
    """Before the opponent joins, either participant closes the channel and the opener's deposit goes back."""
    _participant(channel, signer, "cancel")
    if channel.status != FUNDING:
        raise Refused(f"channel {_label(channel)} is {channel.status}: only a channel not yet joined can be cancelled")
    payout = tuple(deposit if paid else 0 for deposit, paid in zip(channel.fixed.deposits, channel.funded, strict=True))
    return _close(channel, (payout[0], payout[1]))


def conclude(channel: Channel, op: Conclude, signer: str, now: int | None) -> Channel:
    """A final state signed by both participants: its balances are paid out and the channel closes."""
    _participant(channel, signer, "conclude")
    _running(channel, now)
    state = read_state(channel, op.state.state, "the concluding state")
    if not state.final:
        raise Refused("only a final state concludes a channel; this one's 'final' is false")
    if signers(channel, op.state, state, "the concluding state") != {0, 1}:
        raise Refused("a final state concludes a channel only when both participants have signed it")
    _not_stale(channel, state)
    return _close(channel._replace(turn=state.turn, state=op.state.state, challenge=None), state.balances)


def challenge(channel: Channel, op: Challenge, signer: str, now: int | None) -> Channel:
    """A participant registers a supported state; the other must move on from it by the deadline, or it is paid out.

    The chain's own turn 0, as it recorded it, needs no signatures: so an opener who never
    moves can be challenged, and the resting deposits paid back.
    """
    _participant(channel, signer, "challenge")
    _running(channel, now)
    if channel.challenge is not None:
        raise Refused(
            f"channel {_label(channel)} is already challenged (until {channel.challenge.deadline}); "
            "a checkpoint or the response clears it"
        )
    if now is None:
        raise Refused("a challenge needs a clock, and this network keeps no BlockInfo")
    state = supported(channel, op.proof, chain_turn_zero=True)
    _not_stale(channel, state)
    if not signed_by(signer, op.signature, challenge_message(op.proof[-1].state)):
        raise Refused(
            "the challenger's signature does not verify: it must be yours, made for a challenge of this state"
        )
    return channel._replace(
        turn=state.turn, state=op.proof[-1].state, challenge=ChallengeRecord(now + channel.fixed.duration, signer)
    )


def checkpoint(channel: Channel, op: Checkpoint, signer: str, now: int | None) -> Channel:
    """A supported state newer than the chain's is recorded; an ongoing challenge is cleared."""
    _participant(channel, signer, "checkpoint")
    _running(channel, now)
    state = supported(channel, op.proof)
    if state.turn <= channel.turn:
        raise Refused(f"a checkpoint needs a turn above the chain's {channel.turn}, not {state.turn}")
    return channel._replace(turn=state.turn, state=op.proof[-1].state, challenge=None)


def respond(channel: Channel, op: Respond, signer: str, now: int | None) -> Channel:
    """The challenged player's next move from the challenged state, signed by them: the challenge is cleared."""
    _participant(channel, signer, "respond to")
    _running(channel, now)
    if channel.challenge is None or channel.state is None:
        raise Refused(f"channel {_label(channel)} has no challenge to respond to; a checkpoint records newer states")
    state = read_state(channel, op.state.state, "the response")
    if state.turn != channel.turn + 1:
        raise Refused(
            f"the response must be turn {channel.turn + 1}, the move after the challenged state, not {state.turn}"
        )
    if mover(state.turn) not in signers(channel, op.state, state, "the response"):
        raise Refused(f"the response must be signed by its mover, participant {mover(state.turn)}")
    problem = transition_problem(channel, read_state(channel, channel.state, "the chain's state"), state)
    if problem:
        raise Refused(f"the response is not a valid move from turn {channel.turn}: {problem}")
    return channel._replace(turn=state.turn, state=op.state.state, challenge=None)


def finalize(channel: Channel, op: Finalize, now: int | None) -> Channel:
    """After the deadline of an unanswered challenge, anyone may have the challenged state's balances paid out."""
    if channel.status == CLOSED:
        raise Refused(f"channel {_label(channel)} is closed and paid out already")
    if channel.challenge is None or channel.state is None:
        raise Refused(f"channel {_label(channel)} has no challenge to finalize")
    if now is None:
        raise Refused("finalize needs a clock, and this network keeps no BlockInfo")
    if now < channel.challenge.deadline:
        raise Refused(
            f"the challenge on channel {_label(channel)} runs until {channel.challenge.deadline}: "
            f"{channel.challenge.deadline - now} seconds left to answer it"
        )
    state = read_state(channel, channel.state, "the challenged state")
    return _close(channel, state.balances)


def _close(channel: Channel, payout: tuple[int, int]) -> Channel:
    """The channel closed with ``payout`` paid; the chips paid must be the chips held, always."""
    if sum(payout) != channel.held:
        raise InternalError(
            f"channel {channel.id.hex()} would pay out {sum(payout)} chips but holds {channel.held}; nothing was paid"
        )
    return channel._replace(status=CLOSED, held=0, payout=payout, challenge=None)


def _participant(channel: Channel, signer: str, what: str) -> int:
    """The signer's seat (0 or 1); refused on a closed channel (it paid out once) or for anyone else's key."""
    if channel.status == CLOSED:
        raise Refused(f"channel {_label(channel)} is closed and paid out already")
    if signer not in channel.fixed.participants:
        raise Refused(f"only the channel's participants may {what} it; {short(signer)} is not one")
    return channel.fixed.participants.index(signer)


def _running(channel: Channel, now: int | None) -> None:
    """Refuse unless the channel is in play: funded by both, not closed, and no challenge has expired."""
    if channel.status != RUNNING:
        raise Refused(f"channel {_label(channel)} is {channel.status}: both deposits must be paid first")
    if channel.challenge is None:
        return
    if now is None:
        raise Refused("channel is challenged and this network keeps no BlockInfo to tell whether the challenge expired")
    if now >= channel.challenge.deadline:
        raise Refused(
            f"the challenge on channel {_label(channel)} expired at {channel.challenge.deadline}: only finalize remains"
        )


def _not_stale(channel: Channel, state: State) -> None:
    """Refuse a state older than the chain's: the turn the chain records never goes down."""
    if state.turn < channel.turn:
        raise Refused(f"the state of turn {state.turn} is stale: the chain has recorded turn {channel.turn}")


def _label(channel: Channel) -> str:
    """The channel as refusals name it: the start of its id."""
    return short(channel.id.hex())
