"""Properties over random sequences of operations: chips are conserved, and the chain's turn numbers only go up.

Hypothesis plays two players over three XO channels: transfers, opens, deposits
(with the right or a wrong expected amount), cancels, legal moves recorded by
checkpoint, challenges (with fresh or stale states, by players or a stranger),
responses, the clock moving on, finalizes and concludes. Whatever is applied or
refused, the chips in accounts and channels always add up to what was issued, a
refused operation changes nothing, and no channel's recorded turn ever decreases.
"""

from typing import NamedTuple

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from chips_client import transactions as tx
from chips_tp import rps_app, xo_app
from chips_tp.apps import APPS
from chips_tp.channel import Fixed, channel_id, mover
from chips_tp.channel_state import State
from chips_tp.family import channel_address
from chips_tp.ops import SignedState
from chips_tp.state import CLOSED, RUNNING, Channel, decode_channel
from chips_tp.support import read_state
from rps_tp.commitment import commitment
from rps_tp.game import THROWS
from tests.chips_tp.harness import ALICE, BOB, CAROL, ISSUER, NOW, Chain

PLAYERS = (ALICE, BOB)
TERMS = [
    Fixed((ALICE.public_key, BOB.public_key), app, stake, (30, 30), 60, nonce)
    for nonce, (app, stake) in enumerate((("xo", 1), ("rps", 5), ("xo", 10)))
]
#: The rps proposer's salt: one per round is enough here, where nobody tries to guess throws.
SALT = bytes(range(32))
ISSUED = 2000
#: What a step may do, the moves and disputes more often than the rest.
ACTIONS = (
    "transfer", "open", "join", "join", "cancel", "move", "move", "move", "challenge", "challenge", "respond",
    "respond", "wait", "finalize", "conclude",
)  # fmt: skip


def next_moves(fixed: Fixed, old: State) -> list[State]:
    """Every state the channel's app allows after ``old`` (for rps, with any throw but one salt)."""
    return xo_moves(fixed, old) if fixed.app == "xo" else rps_moves(fixed, old)


def with_balances(fixed: Fixed, old: State, app: NamedTuple) -> list[State]:
    """``app`` after ``old`` at each balance a move can pay (0, 1 or 2 stakes to the mover), where the app allows it."""
    moved = mover(old.turn + 1)
    found = []
    for multiple in (0, 1, 2):
        balances = list(old.balances)
        balances[moved] += multiple * fixed.stake
        balances[1 - moved] -= multiple * fixed.stake
        new = State(old.channel, old.turn + 1, False, app, (balances[0], balances[1]))
        if min(balances) >= 0 and APPS[fixed.app].transition_problem(old, new, fixed) is None:
            found.append(new)
    return found


def rps_moves(fixed: Fixed, old: State) -> list[State]:
    data, proposer = old.app, fixed.participants[mover(old.turn + 1)]
    if data.position == "Start":
        nexts = [
            rps_app.RpsData("RoundProposed", data.round + 1,
                            commitment(old.channel.hex(), data.round + 1, proposer, throw, SALT), None, None, None)
            for throw in THROWS
        ]  # fmt: skip
    elif data.position == "RoundProposed":
        nexts = [rps_app.RpsData("Start", data.round, None, None, None, None)]
        nexts += [data._replace(position="RoundAccepted", answer=answer) for answer in THROWS]
    elif data.position == "RoundAccepted":
        nexts = [data._replace(position="Reveal", throw=throw, salt=SALT) for throw in THROWS]
    else:
        nexts = [rps_app.RpsData("Start", data.round, None, None, None, None)]
    return [new for app in nexts for new in with_balances(fixed, old, app)]


def xo_moves(fixed: Fixed, old: State) -> list[State]:
    """Every state the XO app allows after ``old``, found by trying positions, nearby boards and stake multiples."""
    moves = []
    moved = mover(old.turn + 1)
    marks = old.app.crosses | old.app.noughts
    boards = {(0, 0)} | {
        board
        for square in range(9)
        if not marks & (1 << square)
        for board in (
            (old.app.crosses | 1 << square, old.app.noughts),
            (old.app.crosses, old.app.noughts | 1 << square),
        )
    }
    for position in xo_app.POSITIONS:
        for crosses, noughts in boards:
            for multiple in (0, 1, 2):
                balances = list(old.balances)
                balances[moved] += multiple * fixed.stake
                balances[1 - moved] -= multiple * fixed.stake
                if min(balances) < 0:
                    continue
                new = State(
                    old.channel, old.turn + 1, False, xo_app.XoData(position, crosses, noughts), tuple(balances)
                )
                if xo_app.valid_transition(old, new, fixed):
                    moves.append(new)
    return moves


def recorded(chain: Chain, fixed: Fixed) -> Channel | None:
    address = channel_address(channel_id(fixed))
    return decode_channel(address, chain.state.get(address, b""))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_chips_are_conserved_and_recorded_turns_only_go_up(data):
    chain = Chain()
    now = NOW
    for player in PLAYERS:
        assert chain.attempt(tx.issue(ISSUER, player.public_key, ISSUED // 2)) is None
    for fixed in TERMS[:2]:  # two channels in play from the start; the third is opened and joined at random
        assert chain.attempt(tx.open_channel(ALICE, fixed)) is None
        assert chain.attempt(tx.join(BOB, fixed, fixed.deposits[0])) is None
    signed: dict[bytes, list[SignedState]] = {channel_id(fixed): [] for fixed in TERMS}
    turns = {channel_id(fixed): 0 for fixed in TERMS}
    for _ in range(data.draw(st.integers(min_value=10, max_value=30), label="steps")):
        fixed = data.draw(st.sampled_from(TERMS), label="channel")
        player = data.draw(st.sampled_from((ALICE, BOB, ALICE, BOB, CAROL)), label="signer")
        channel = recorded(chain, fixed)
        known = signed[channel_id(fixed)]
        action = data.draw(st.sampled_from(ACTIONS), label="action")
        if action == "transfer":
            transaction = tx.transfer(
                player, data.draw(st.sampled_from(PLAYERS)).public_key, data.draw(st.integers(1, 1200))
            )
        elif action == "open":
            transaction = tx.open_channel(ALICE, fixed)
        elif action == "join":
            expected = (
                channel.held if channel is not None and data.draw(st.booleans()) else data.draw(st.integers(0, 60))
            )
            transaction = tx.join(BOB, fixed, expected)
        elif action == "cancel":
            transaction = tx.cancel(player, fixed)
        elif action == "wait":
            now += data.draw(st.integers(1, 90))
            chain.at(now)
            continue
        elif action == "finalize":
            transaction = tx.finalize(player, fixed)
        elif channel is None or channel.status != RUNNING or channel.state is None:
            continue
        else:
            head = read_state(channel, channel.state, "the chain's state")
            if action in ("move", "respond"):
                moves = next_moves(fixed, head)
                if not moves:
                    continue
                new = data.draw(st.sampled_from(moves), label="move")
                by = PLAYERS[mover(new.turn)]
                move = tx.sign_move(fixed, new, by)
                known.append(move)
                if action == "move":
                    transaction = tx.checkpoint(player, fixed, (move,))
                else:
                    transaction = tx.respond(player, fixed, move)
            elif action == "challenge":
                kind = data.draw(st.sampled_from(("known", "both", "chain")), label="proof")
                if kind == "chain":  # the chain's state unsigned: supported at turn 0 alone
                    transaction = tx.challenge(player, fixed, tx.chain_turn_zero(channel.state))
                else:
                    proof = data.draw(st.sampled_from(known)) if known and kind == "known" else None
                    if proof is None:
                        proof = tx.signed_state(fixed, head, ALICE, BOB)
                    transaction = tx.challenge(player, fixed, (proof,))
            else:
                final = head._replace(turn=head.turn + data.draw(st.integers(0, 2)), final=True)
                transaction = tx.conclude(player, fixed, tx.signed_state(fixed, final, ALICE, BOB))
        outcome = chain.attempt(transaction)
        event(f"{fixed.app} {action}: {'applied' if outcome is None else 'refused'}")
        assert chain.chips(ALICE, BOB, CAROL) == ISSUED
        for terms in TERMS:
            after = recorded(chain, terms)
            if after is None:
                continue
            assert after.turn >= turns[after.id]
            turns[after.id] = after.turn
            if after.status == CLOSED:
                paid_in = sum(deposit for deposit, paid in zip(terms.deposits, after.funded, strict=True) if paid)
                assert after.held == 0
                assert after.payout is not None
                assert sum(after.payout) == paid_in
            elif after.state is not None:
                assert sum(read_state(after, after.state, "the state").balances) == after.held
