"""Rock-paper-scissors in a channel, after the ForceMove game (seed 000): a pure ``valid_transition(old, new, fixed)``.

Positions: ``Start`` (resting), ``RoundProposed`` (the proposer's commitment),
``RoundAccepted`` (the responder's throw, in the clear), ``Reveal`` (the proposer's
throw and salt, and the round's result) and back to ``Start``. The responder may
decline a proposal (``RoundProposed -> Start``: nothing moves). Accepting moves the
proposer's stake to the responder at once, so a proposer who does not reveal loses
it; the reveal pays the proposer twice the stake for a win, the stake back for a tie.
Commitments are the rps family's (:mod:`rps_tp.commitment`), over the channel id in
hex as the name, the round and the proposer's key; throws and their order are
:mod:`rps_tp.game`'s.
"""

from typing import Final, NamedTuple

from chips_tp.channel import MAX_TURN, Fixed, mover, paid_problem
from chips_tp.channel_state import State
from rps_tp.commitment import commitment
from rps_tp.game import COMMITMENT_BYTES, SALT_BYTES, THROWS, round_winner
from xo_core import canonical
from xo_core.canonical import Malformed

START: Final = "Start"
ROUND_PROPOSED: Final = "RoundProposed"
ROUND_ACCEPTED: Final = "RoundAccepted"
REVEAL: Final = "Reveal"
POSITIONS: Final = (START, ROUND_PROPOSED, ROUND_ACCEPTED, REVEAL)
KEYS: Final = ("salt", "round", "throw", "answer", "position", "commitment")


class RpsData(NamedTuple):
    """An rps channel state's app data; a field is None where its position has no such thing yet."""

    position: str
    round: int
    commitment: bytes | None
    answer: str | None
    throw: str | None
    salt: bytes | None


INITIAL: Final = RpsData(START, 0, None, None, None, None)
#: Which fields each position has set (the others are null).
_SET: Final = {
    START: (),
    ROUND_PROPOSED: ("commitment",),
    ROUND_ACCEPTED: ("commitment", "answer"),
    REVEAL: ("commitment", "answer", "throw", "salt"),
}


def encode(data: RpsData) -> dict[str, object]:
    """The app data as the state map holds it."""
    return {
        "salt": data.salt, "round": data.round, "throw": data.throw, "answer": data.answer,
        "position": data.position, "commitment": data.commitment,
    }  # fmt: skip


def decode(value: object) -> RpsData:
    """The app data in ``value``: :class:`Malformed` unless well typed, with exactly the fields its position has."""
    fields = canonical.fields(value, "the rps app data", KEYS)
    position = canonical.choice(fields["position"], "'position'", POSITIONS)
    for key in ("commitment", "answer", "throw", "salt"):
        if (fields[key] is None) == (key in _SET[position]):
            raise Malformed(f"rps app data: {position} {'has' if key in _SET[position] else 'has no'} '{key}'")

    return RpsData(
        position,
        canonical.whole_number(fields["round"], "'round'", 0, MAX_TURN),
        None
        if fields["commitment"] is None
        else canonical.byte_string(fields["commitment"], "'commitment'", COMMITMENT_BYTES),
        None if fields["answer"] is None else canonical.choice(fields["answer"], "'answer'", THROWS),
        None if fields["throw"] is None else canonical.choice(fields["throw"], "'throw'", THROWS),
        None if fields["salt"] is None else canonical.byte_string(fields["salt"], "'salt'", SALT_BYTES),
    )


def transition_problem(old: State, new: State, fixed: Fixed) -> str | None:
    """Why ``new`` cannot follow ``old`` in an rps channel, or None when it can."""
    before, after = old.app, new.app
    assert isinstance(before, RpsData) and isinstance(after, RpsData)
    step = f"{before.position} -> {after.position}"
    if after.position not in _NEXT[before.position]:
        return f"{step} is not a move: after {before.position} comes {' or '.join(_NEXT[before.position])}"
    stake, moved = fixed.stake, mover(new.turn)
    if before.position == START:
        if after.round != before.round + 1:
            return f"{step} proposes round {before.round + 1}, not {after.round}"
        if min(old.balances) < stake:
            return f"{step}: a player cannot cover the stake of {stake} chips, so the match is over; conclude it"
        return paid_problem(step, old.balances, new.balances, moved, 0)
    if after.round != before.round:
        return f"{step} keeps round {before.round}, not {after.round}"
    if after.position == START:
        return paid_problem(step, old.balances, new.balances, moved, 0)
    if after.commitment != before.commitment:
        return f"{step} keeps the proposer's commitment"
    if after.position == ROUND_ACCEPTED:
        return paid_problem(step, old.balances, new.balances, moved, stake)
    if after.answer != before.answer:
        return f"{step} keeps the responder's answer"
    assert after.throw is not None and after.salt is not None and after.answer is not None
    if (
        commitment(new.channel.hex(), after.round, fixed.participants[moved], after.throw, after.salt)
        != after.commitment
    ):
        return (
            f"{step}: {after.throw} with this salt is not what participant {moved} committed to in round {after.round}"
        )
    winner = round_winner((after.throw, after.answer))
    won = 2 * stake if winner == 0 else stake if winner is None else 0
    return paid_problem(step, old.balances, new.balances, moved, won)


def valid_transition(old: State, new: State, fixed: Fixed) -> bool:
    """Whether ``new`` may follow ``old`` in an rps channel (see :func:`transition_problem` for why not)."""
    return transition_problem(old, new, fixed) is None


_NEXT: Final = {
    START: (ROUND_PROPOSED,),
    ROUND_PROPOSED: (ROUND_ACCEPTED, START),
    ROUND_ACCEPTED: (REVEAL,),
    REVEAL: (START,),
}
