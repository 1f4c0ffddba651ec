"""The rules of tournaments: pure functions from a record, an op and what it read to the records to write.

Every refusal is a :class:`Refused` saying why. Chips move only between accounts and a
pool, by the buy-in exactly; the payout pays out the pool to the chip (``InternalError``
if it ever did not, for that would be a bug, not a player's doing).
"""

from typing import NamedTuple

from sawtooth_sdk.processor.exceptions import InternalError

from chips_tp.apps import APPS
from chips_tp.channel import MAX_AMOUNT, MIN_CHALLENGE_SETTING, Fixed, short
from chips_tp.channel_state import decode_state
from chips_tp.rules import credited, debited
from chips_tp.state import CLOSED as CHANNEL_CLOSED
from chips_tp.state import Account, Channel
from chips_tp.support import Refused
from chips_tp.tournament import (
    BLACK,
    CANCELLED,
    CLOSED,
    DRAW,
    JOINING,
    KNOCKOUT,
    PLAYING,
    SWISS,
    UNPLAYED,
    WHITE,
    Pairing,
    Tournament,
    first_to_problem,
    match_channel,
    match_fixed,
    played,
)  # fmt: skip
from chips_tp.tournament_ops import Create, Enter, Result
from chips_tp.tournament_pairing import (
    knockout_first_round,
    knockout_next_round,
    knockout_rounds,
    seed_order,
    swiss_round,
)  # fmt: skip
from chips_tp.tournament_payout import split
from chips_tp.tournament_ranking import standings
from xo_core.canonical import Malformed
from xo_core.text import counted, quoted


class Change(NamedTuple):
    """What a start or an advance writes: the record, chips paid to players (refunds or prizes), new channels."""

    tournament: Tournament
    paid: tuple[tuple[str, int], ...]
    channels: tuple[Channel, ...]


def create(existing: Tournament | None, op: Create, signer: str, now: int, floor: int) -> Tournament:
    """A new tournament, joining until ``now`` + the joining time; its matches' challenges last a third of a round."""
    label = _label(op.name)
    if existing is not None:
        raise Refused(f"{label} exists already ({existing.status}): a tournament's name is used once; choose another")
    fewest, most = op.players
    problem = _terms_problem(op, fewest, most, floor)
    if problem:
        raise Refused(f"cannot create {label}: {problem}")
    return Tournament(
        op.name, op.game, op.format, op.rounds, op.buy_in, signer, fewest, most, now + op.join_seconds,
        op.round_seconds, op.round_seconds // 3, op.prizes, JOINING, (), 0, None, 0, None, (), None, op.first_to,
    )  # fmt: skip


def _terms_problem(op: Create, fewest: int, most: int, floor: int) -> str | None:
    if fewest > most:
        return f"the fewest players ({fewest}) are more than the most ({most})"
    if sum(op.prizes) != 100:
        return f"the prizes add up to {sum(op.prizes)} percent, not 100"
    if len(op.prizes) > most:
        return f"{counted(len(op.prizes), 'prize')} for at most {counted(most, 'player')}"
    problem = first_to_problem(op.game, op.first_to)
    if problem:
        return problem
    if op.format == SWISS and not op.rounds:
        return "a swiss needs its number of rounds (1 to 64)"
    if op.format == KNOCKOUT and op.rounds:
        return "a knockout's rounds follow from its field: give 0"
    if op.round_seconds // 3 < floor:
        return (
            f"a round of {op.round_seconds} s leaves {op.round_seconds // 3} s to answer a challenge in its matches, "
            f"below this network's floor of {floor} s (the setting {MIN_CHALLENGE_SETTING}): make rounds of at least "
            f"{3 * floor} s"
        )
    if op.buy_in * most > MAX_AMOUNT:
        return f"{most} buy-ins of {op.buy_in} chips would be more than {MAX_AMOUNT} (overflow)"
    return None


def enter(
    tournament: Tournament, account: Account | None, op: Enter, signer: str, now: int
) -> tuple[Tournament, Account | None]:
    """The signer pays the buy-in into the pool and is in."""
    label = _label(tournament.name)
    _joining(tournament)
    if signer in tournament.players:
        raise Refused(f"you are in {label} already")
    if now >= tournament.join_until:
        raise Refused(f"the entries of {label} closed at {tournament.join_until}; it starts next")
    if len(tournament.players) >= tournament.max_players:
        raise Refused(f"{label} is full ({tournament.max_players} of {tournament.max_players} players)")
    if op.buy_in != tournament.buy_in:
        raise Refused(f"the buy-in of {label} is {tournament.buy_in} chips, not the {op.buy_in} you agreed to")
    account = debited(account, signer, tournament.buy_in, f"the buy-in of {label}")
    return tournament._replace(players=(*tournament.players, signer), pool=tournament.pool + tournament.buy_in), account


def leave(tournament: Tournament, account: Account | None, signer: str) -> tuple[Tournament, Account]:
    """Before the start, a player leaves and their buy-in goes back."""
    _joining(tournament)
    if signer not in tournament.players:
        raise Refused(f"{short(signer)} is not in {_label(tournament.name)}: only its players may leave it")
    players = tuple(key for key in tournament.players if key != signer)
    refunded = credited(account, signer, tournament.buy_in)
    return tournament._replace(players=players, pool=tournament.pool - tournament.buy_in), refunded


def start(tournament: Tournament, now: int, draw: str) -> Change:
    """Refunds if too few entered; otherwise the seed order (by ``draw``), round 1 and its channels."""
    _joining(tournament)
    entered = len(tournament.players)
    if now < tournament.join_until and entered < tournament.max_players:
        raise Refused(
            f"{_label(tournament.name)} starts at {tournament.join_until} or when full: {tournament.join_until - now} "
            f"seconds left, {entered} of {tournament.max_players} players in"
        )
    if entered < tournament.min_players:
        refunds = tuple((key, tournament.buy_in) for key in tournament.players)
        cancelled = tournament._replace(status=CANCELLED, pool=0, payout=refunds)
        return Change(_paid_out(tournament, cancelled), refunds, ())
    seeded = tournament._replace(players=seed_order(tournament.name, draw, tournament.players), draw=draw)
    if tournament.format == SWISS:
        first = swiss_round(entered, ())
        assert first is not None, "a first round always pairs"
    else:
        first = knockout_first_round(entered)
        seeded = seeded._replace(rounds=knockout_rounds(entered))
    return _next_round(seeded, first, now)


def result_fixed(tournament: Tournament, op: Result) -> Fixed:
    """The fixed terms of the channel whose result ``op`` asks to record; refused unless that result is due."""
    label = _label(tournament.name)
    _playing(tournament)
    if op.round != tournament.round:
        when = "comes too late" if op.round < tournament.round else "is not paired yet"
        raise Refused(f"round {tournament.round} of {label} is in play: a result of round {op.round} {when}")
    pairings = tournament.pairings[op.round - 1]
    if op.board >= len(pairings):
        raise Refused(f"round {op.round} of {label} has {counted(len(pairings), 'board')}, from 0: no board {op.board}")
    pairing = pairings[op.board]
    if not played(pairing):
        raise Refused(f"board {op.board} of round {op.round} is a bye: it has no match to record")
    if pairing.result is not None:
        raise Refused(f"the result of board {op.board} of round {op.round} is recorded already ({pairing.result})")
    return match_fixed(tournament, op.round, op.board)


def record(tournament: Tournament, op: Result, channel: Channel | None) -> Tournament:
    """The result of board ``op.board`` from its channel, which must be closed: concluded, or finalized."""
    result_fixed(tournament, op)
    where = f"board {op.board} of round {op.round}"
    if channel is None:
        raise InternalError(f"the channel of {where} of {_label(tournament.name)} is missing")
    if channel.status != CHANNEL_CLOSED:
        raise Refused(f"the channel of {where} is still {channel.status}: its result enters when it is closed")
    rounds = list(tournament.pairings)
    pairings = list(rounds[-1])
    pairings[op.board] = pairings[op.board]._replace(result=channel_result(channel))
    rounds[-1] = tuple(pairings)
    return tournament._replace(pairings=tuple(rounds))


def channel_result(channel: Channel) -> str:
    """A closed match's result: by the payout if concluded; if finalized, whoever had to answer the challenge lost."""
    assert channel.state is not None and channel.payout is not None
    try:
        state = decode_state(channel.state, APPS[channel.fixed.app].decode)
    except Malformed as error:
        raise InternalError(
            f"the closed channel {channel.id.hex()} holds a state that does not decode: {error}"
        ) from None
    if not state.final:
        return BLACK if state.turn % 2 == 0 else WHITE  # participant turn % 2 was due to move after it: forfeited
    white, black = channel.payout
    return WHITE if white > black else BLACK if black > white else DRAW


def advance(tournament: Tournament, now: int) -> Change:
    """Once every result is in, or the round's time is over: the next round, or the standings and the payout."""
    _playing(tournament)
    current = tournament.pairings[-1]
    missing = sum(1 for p in current if p.result is None)
    assert tournament.round_ends is not None
    if missing and now < tournament.round_ends:
        raise Refused(
            f"round {tournament.round} of {_label(tournament.name)} may be advanced from {tournament.round_ends}: "
            f"{tournament.round_ends - now} seconds left and {counted(missing, 'result')} missing"
        )
    done = tuple(p if p.result is not None else p._replace(result=UNPLAYED) for p in current)
    tournament = tournament._replace(pairings=(*tournament.pairings[:-1], done))
    following: tuple[Pairing, ...] | None = None
    if tournament.round < tournament.rounds:
        if tournament.format == SWISS:
            following = swiss_round(len(tournament.players), tournament.pairings)
        else:
            following = knockout_next_round(done)
    if following is None:
        return _finish(tournament)
    return _next_round(tournament, following, now)


def _next_round(tournament: Tournament, pairings: tuple[Pairing, ...], now: int) -> Change:
    number = tournament.round + 1
    tournament = tournament._replace(
        status=PLAYING, round=number, round_ends=now + tournament.round_seconds,
        pairings=(*tournament.pairings, pairings),
    )  # fmt: skip
    channels = tuple(match_channel(tournament, number, board) for board, p in enumerate(pairings) if played(p))
    return Change(tournament, (), channels)


def _finish(tournament: Tournament) -> Change:
    """The standings, and the pool paid by the split: every chip of it, once."""
    table = standings(tournament.format, len(tournament.players), tournament.pairings)
    amounts = split(tournament.pool, tournament.prizes, len(table))
    payout = tuple((tournament.players[line.player], paid) for line, paid in zip(table, amounts, strict=False))
    closed = tournament._replace(status=CLOSED, pool=0, round_ends=None, payout=payout)
    return Change(_paid_out(tournament, closed), payout, ())


def _paid_out(before: Tournament, after: Tournament) -> Tournament:
    assert after.payout is not None
    if sum(paid for _key, paid in after.payout) != before.pool:
        raise InternalError(f"{_label(before.name)} would pay out {sum(p for _k, p in after.payout)} chips but holds "
                            f"{before.pool}; nothing was paid")  # fmt: skip
    return after


def _joining(tournament: Tournament) -> None:
    if tournament.status != JOINING:
        raise Refused(f"{_label(tournament.name)} is {_said(tournament)}: that is done only while it is joining")


def _playing(tournament: Tournament) -> None:
    if tournament.status != PLAYING:
        raise Refused(f"{_label(tournament.name)} is {_said(tournament)}: that is done only while it is playing")


def _said(tournament: Tournament) -> str:
    if tournament.status == CLOSED:
        return "closed and paid out already"
    if tournament.status == CANCELLED:
        return "cancelled, its buy-ins refunded"
    return tournament.status


def _label(name: str) -> str:
    return f"tournament {quoted(name)}"
