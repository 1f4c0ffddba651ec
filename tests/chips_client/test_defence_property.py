"""Property: wherever the match loop stands, a challenge with any older supported state is answered with the newest
state the player holds, before the deadline (issue 34, "widen the net").

Hypothesis picks the game, the seeds, which side is the victim, where its loop stands
when the challenge comes (waiting for the opponent's move, waiting for the player's
answer, having proposed the final state, holding the opponent's proposal, holding the
final state both signed while the REST API is away, resumed from the store), and the
turn the cheater challenges with: any turn up to the newest the victim holds, proved
from the cheater's own store. The victim's loop then takes a few passes, the chain's
clock short of the deadline (the computer plays for a silent player at half the time
left), and the chain must hold the victim's newest state (or be concluded on the final
one), or the challenge must stand at that newest state with the challenger to move.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from chips_client import transactions as tx
from chips_client.asking import Immediate, Question
from chips_client.match import Match
from chips_client.messages import decode_message, encode_message
from chips_tp.channel import mover
from chips_tp.hashes import signed_by, state_message
from chips_tp.ops import SignedState
from chips_tp.state import CLOSED
from tests.chips_client.fakes import FakeBroker, FakeChain, step_until
from tests.chips_client.test_match import ALICE, BOB, Bot, match, terms

STATES = (
    "waiting for the opponent's move",
    "waiting for the player",
    "proposing",
    "countersigning",
    "waiting for the chain",
    "resuming from the store",
)


class Tiring:
    """A person who answers the first ``answers`` questions at once, then no more."""

    def __init__(self, seed: int, answers: int) -> None:
        self.bot, self.left = Immediate(Bot(seed)), answers
        self.pending: Question | None = None

    def ask(self, question: Question) -> None:
        self.pending = question
        if self.left > 0:
            self.bot.ask(question)

    def answer(self) -> int | str | None:
        if self.left <= 0:
            return None
        given_ = self.bot.answer()
        if given_ is not None:
            self.left -= 1
            self.pending = None
        return given_

    def withdraw(self, reason: str) -> None:
        self.pending = None
        self.bot.withdraw(reason)


def proofs_held(side: Match, up_to: int) -> dict[int, tuple[SignedState, ...]]:
    """Every non-final turn up to ``up_to`` that ``side``'s store can prove, with its proof."""
    rows = dict(side.store.states(side.id, 10_000))
    found: dict[int, tuple[SignedState, ...]] = {}
    keys = side.fixed.participants

    def by_mover(turn: int) -> bool:
        signature = rows[turn].signatures[mover(turn)]
        return signature is not None and signed_by(keys[mover(turn)], signature, state_message(rows[turn].state))

    for turn, signed in rows.items():
        if turn > up_to or side.channel.decode(signed.state).final:
            continue
        if turn == 0:
            found[0] = tx.chain_turn_zero(signed.state)
        elif None not in signed.signatures:
            found[turn] = (signed,)
        elif turn - 1 in rows and by_mover(turn - 1) and by_mover(turn):
            found[turn] = (rows[turn - 1], signed)
        elif turn == 1 and by_mover(turn):  # a move from the chain's own turn 0
            found[turn] = (signed,)
    return found


def newest_supported(side: Match) -> int:
    """The turn of the newest non-final state ``side`` holds."""
    held = [h for h in side.channel.history if not h.state.final]
    return held[-1].state.turn


def store_dir() -> contextlib.AbstractContextManager[str]:
    """A directory for the examples' stores, in memory where the machine has one (fsync costs nothing there)."""
    shm = Path("/dev/shm")
    return tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None, prefix="chips-property-")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(
    app=st.sampled_from(["xo", "rps"]),
    seed=st.integers(0, 1000),
    victim_seat=st.sampled_from([0, 1]),
    where=st.sampled_from(STATES),
    passes=st.integers(0, 12),
    pick=st.integers(0, 10_000),
)
def test_a_challenge_with_any_older_state_is_answered_with_the_newest_state_held(
    app, seed, victim_seat, where, passes, pick
):
    with store_dir() as directory:
        check(Path(directory), app, seed, victim_seat, where, passes, pick)


def check(directory: Path, app: str, seed: int, victim_seat: int, where: str, passes: int, pick: int) -> None:
    channel = terms(app, rounds=1)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    signers = (ALICE, BOB)
    person = Tiring(seed, passes % 4) if where == "waiting for the player" else Bot(seed)
    victim = match(signers[victim_seat], channel, directory, broker, chain, chooser=person, stand_in=Bot(seed + 1))
    cheater = match(signers[1 - victim_seat], channel, directory, broker, chain, chooser=Bot(seed + 2),
                    stand_in=Bot(seed + 3))  # fmt: skip
    victim.start(), cheater.start()
    sides = [victim, cheater]
    if where == "waiting for the opponent's move":
        step_until(sides, lambda: victim.channel.latest.state.final or victim.channel.my_move is False, 50)
        for _ in range(passes):
            if any(side.channel.latest.state.final for side in sides):
                break
            cheater.step(0)
            victim.step(0)
    elif where == "waiting for the player":
        tired = lambda: person.pending is not None and person.left <= 0  # noqa: E731
        step_until(sides, lambda: tired() or victim.channel.latest.state.final)
        assume(not victim.channel.latest.state.final)
    elif where in ("proposing", "countersigning"):  # the proposer, or the other, is the victim
        broker.drop = lambda _topic, payload: victim.channel.decode(decode_message(payload).state).final
        step_until(sides, lambda: any(side.channel.latest.state.final for side in sides))
        proposer = victim if victim.channel.latest.state.final else cheater
        if (proposer is victim) == (where == "countersigning"):
            victim, cheater = cheater, victim
        if where == "countersigning":
            victim.receive(encode_message(cheater.channel.latest.signed))
    elif where == "waiting for the chain":
        chain.away = True
        step_until(sides, lambda: victim.channel.concluded)
        chain.away = False
    else:
        for _ in range(passes):
            victim.step(0), cheater.step(0)
        victim.session.close()
        victim.store.close()
        victim = match(victim.signer, channel, directory, broker, chain, chooser=Bot(seed), stand_in=Bot(seed + 1))
        victim.start()

    assume(chain.record.status != CLOSED)
    victim._drain(0), cheater._drain(0)
    proofs = proofs_held(cheater, newest_supported(victim))
    turn = sorted(proofs)[pick % len(proofs)]
    chain.submit(tx.challenge(cheater.signer, channel.fixed, proofs[turn]), "the cheater's challenge")
    deadline = chain.record.challenge.deadline

    victim._next_poll = victim._chain_at = 0.0
    for _ in range(4):
        victim.step(0)
        victim._next_poll = 0.0
        if victim._due is not None and victim._due.computer_at is not None:
            chain.now = max(chain.now, victim._due.computer_at)
        assert chain.now < deadline

    record, newest, latest = chain.record, newest_supported(victim), victim.channel.latest.state
    outcome = "concluded" if record.status == CLOSED else "the challenge stands" if record.challenge else "answered"
    event(f"{where}: {outcome}")
    if latest.final and victim.channel.concluded:
        assert record.status == CLOSED and record.payout == victim.channel.latest.state.balances
    elif turn < newest:  # a newer state held, or the victim's own move (a response)
        assert (record.turn, record.challenge) == (newest, None), f"challenged at {turn}, newest held {newest}"
    else:
        assert mover(turn + 1) != victim.me, f"challenged at {turn}, the victim's move, and it did not move"
        assert record.turn == turn and record.challenge is not None  # the challenger holds themself to move on
