"""Two players' matches against each other through a fake broker, refereed by a chain applying chips_tp's rules.

Each side runs :class:`chips_client.match.Match` in a thread of its own with a store of
its own, as two ``chips bot`` processes would.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from pathlib import Path

import pytest

from chips_client import match as match_loop
from chips_client import transactions as tx
from chips_client.asking import Immediate
from chips_client.channels import nonce_of
from chips_client.match import PASS_SECONDS, Match
from chips_client.messages import decode_message, encode_message, topic
from chips_client.store import ChannelTerms, Store
from chips_tp import rps_app, xo_app
from chips_tp.channel import Fixed
from chips_tp.channel_state import State
from tests.chips_client.fakes import FakeBroker, FakeChain
from xo_client.ai import choose_move
from xo_core.signing import Signer

ALICE = Signer.from_hex("00" * 31 + "01")
BOB = Signer.from_hex("00" * 31 + "02")
LIMIT = 20.0


class Bot:
    """Moves at random (seeded), as ``chips bot --level random`` does."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def xo_space(self, board: str, mark: str) -> int:
        return choose_move(board, mark, self.rng, "random")

    def rps_throw(self) -> str:
        return self.rng.choice(("rock", "paper", "scissors"))


def terms(app: str, rounds: int = 3, stake: int = 10, deposit: int = 100, name: str = "duel") -> ChannelTerms:
    fixed = Fixed((ALICE.public_key, BOB.public_key), app, stake, (deposit, deposit), 60, nonce_of(name, rounds))
    return ChannelTerms(name, fixed, rounds)


def match(signer: Signer, channel: ChannelTerms, tmp_path: Path, broker: FakeBroker, chain: FakeChain, **kw) -> Match:
    """``signer``'s side, with a store of its own (the same file each time for the same key)."""
    store = Store(tmp_path / f"{signer.public_key}.sqlite")
    picked = kw.pop("chooser", Bot(ord(signer.public_key[-1])))
    chooser = picked if hasattr(picked, "ask") else Immediate(picked)
    return Match(
        signer=signer, terms=channel, store=store, chain=chain, connect=broker.session, chooser=chooser,
        say=kw.pop("say", lambda _line: None), clock=chain.clock, **kw,
    )  # fmt: skip


def play_both(first: Match, second: Match) -> dict[str, str | BaseException]:
    outcomes: dict[str, str | BaseException] = {}

    def run(name: str, side: Match) -> None:
        try:
            outcomes[name] = side.run(LIMIT)
        except BaseException as error:  # reported by the test
            outcomes[name] = error

    threads = [threading.Thread(target=run, args=(n, m)) for n, m in (("alice", first), ("bob", second))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(LIMIT + 5)
    return outcomes


@pytest.mark.parametrize("app", ["xo", "rps"])
def test_a_best_of_three_ends_in_one_conclude_paying_the_final_states_balances(app, tmp_path):
    channel = terms(app)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice, bob = (match(s, channel, tmp_path, broker, chain) for s in (ALICE, BOB))
    assert play_both(alice, bob) == {"alice": "concluded", "bob": "concluded"}
    assert chain.submitted == ["conclude"]
    final = alice.channel.latest.state
    assert final.final and chain.record.payout == final.balances
    assert sum(final.balances) == 200
    assert bob.channel.latest.signed == alice.channel.latest.signed
    if app == "rps":
        assert final.app.round == 3
    else:
        assert alice._games == bob._games == 3


def test_the_countersigner_hears_the_close_at_its_next_pass_not_at_its_next_half_second_read(tmp_path):
    channel = terms("rps", rounds=1)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    sides = {name: match(signer, channel, tmp_path, broker, chain) for name, signer in (("alice", ALICE), ("bob", BOB))}
    for side in sides.values():
        side.start()
    ended: dict[str, str] = {}
    for _ in range(100):  # in turn, one thread, until the proposer concluded on chain (the other steps no more)
        for name, side in sides.items():
            if outcome := side.step(0):
                ended[name] = outcome
            if chain.submitted:
                break
        if chain.submitted:
            break
    assert chain.submitted == ["conclude"] and list(ended.values()) == ["concluded"]
    (countersigner,) = [side for name, side in sides.items() if name not in ended]
    passes = 1
    while not countersigner.step(PASS_SECONDS):  # a pass waits this long for a message: none comes any more
        passes += 1
        assert passes < 50
    assert passes <= 2  # reading every POLL_SECONDS, it took five
    for side in sides.values():
        side.session.close()


def test_every_state_is_in_the_store_before_it_is_sent(tmp_path):
    channel = terms("xo", rounds=1)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice, bob = (match(s, channel, tmp_path, broker, chain) for s in (ALICE, BOB))
    sent = []
    stored_when_sent = []

    def watch(topic: str, payload: bytes) -> bool:
        sent.append(payload)
        sender = alice if topic.endswith(BOB.public_key) else bob
        data = decode_message(payload).state
        stored_when_sent.append(data in sender.store.all_states(sender.id))
        return False

    broker.drop = watch
    play_both(alice, bob)
    assert sent and all(stored_when_sent)


def test_a_rematch_follows_each_xo_game_and_the_loser_opens_the_next(tmp_path):
    channel = terms("xo", rounds=2)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice, bob = (match(s, channel, tmp_path, broker, chain) for s in (ALICE, BOB))
    play_both(alice, bob)
    positions = [alice.channel.decode(data).app.position for data in alice.store.all_states(alice.id)]
    assert positions.count("PlayAgainMeFirst") == 1 and positions[-1] in ("Victory", "Draw")


def test_a_player_who_cannot_cover_the_stake_ends_the_match(tmp_path):
    channel = terms("rps", rounds=0, stake=10, deposit=10)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice, bob = (match(s, channel, tmp_path, broker, chain) for s in (ALICE, BOB))
    assert play_both(alice, bob) == {"alice": "concluded", "bob": "concluded"}
    balances = chain.record.payout
    assert balances is not None and (min(balances) < 10)


def wait_for(condition, seconds: float = 10.0) -> None:
    ends = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < ends, "timed out"
        time.sleep(0.02)


def run_alone(side: Match, limit: float = LIMIT, name: str = "alice") -> tuple[threading.Thread, dict[str, object]]:
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome[name] = side.run(limit)
        except BaseException as error:
            outcome[name] = error

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def test_a_silent_opponent_is_challenged_and_the_stake_of_the_round_goes_to_the_last_mover(tmp_path):
    channel = terms("xo")
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice = match(ALICE, channel, tmp_path, broker, chain, patience=0.3)
    thread, outcome = run_alone(alice)
    wait_for(lambda: chain.record.challenge is not None)
    assert chain.record.turn == 1 and chain.record.challenge.challenger == ALICE.public_key
    chain.now = chain.record.challenge.deadline + 2
    thread.join(LIMIT)
    assert outcome == {"alice": "finalized"}
    assert chain.submitted == ["challenge", "finalize"]
    assert chain.record.payout == (110, 90)


def test_an_invalid_state_is_refused_kept_as_evidence_and_the_last_valid_one_challenged(tmp_path):
    channel = terms("xo")
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice = match(ALICE, channel, tmp_path, broker, chain)
    thread, outcome = run_alone(alice)
    wait_for(lambda: alice.channel is not None and alice.channel.latest.state.turn == 1)
    crosses = alice.channel.latest.state.app.crosses
    nought = next(bit for bit in (256, 1, 16) if not bit & crosses)
    greedy = State(alice.id, 2, False, xo_app.XoData("OPlaying", crosses, nought), (50, 150))  # O takes 60, not 20
    signed = tx.signed_state(channel.fixed, greedy, BOB)
    broker.publish(topic(alice.id, ALICE.public_key), encode_message(signed))
    wait_for(lambda: alice.refused == 1)
    alice.patience = 0.3  # only now: the challenge comes after the refusal, whatever the machine's speed
    wait_for(lambda: chain.record.challenge is not None)
    assert alice.refused == 1 and alice.channel.latest.state.turn == 1
    [(data, reason)] = alice.store.evidence(alice.id)
    assert data == encode_message(signed) and "balances" in reason
    chain.now = chain.record.challenge.deadline + 2
    thread.join(LIMIT)
    assert outcome == {"alice": "finalized"} and chain.record.payout == (110, 90)


def test_a_state_received_is_acknowledged_to_the_broker_only_once_it_is_in_the_store(tmp_path):
    channel = terms("xo", rounds=1)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice = match(ALICE, channel, tmp_path, broker, chain)
    stored_when_acknowledged: list[bool] = []

    def acknowledging(on_message, on_reconnect):
        """Bob's transport: it acknowledges each message when the future his match returned is done."""

        def deliver(topic: str, payload: bytes) -> None:
            handled = on_message(topic, payload)
            data = decode_message(payload).state
            handled.add_done_callback(
                lambda _done: stored_when_acknowledged.append(data in on_disk.all_states(bob.id))
            )

        return broker.session(deliver, on_reconnect)

    on_disk = Store(tmp_path / "bob.sqlite")  # a connection of its own: it reads only what was committed
    bob = Match(
        signer=BOB, terms=channel, store=Store(tmp_path / "bob.sqlite"), chain=chain, connect=acknowledging,
        chooser=Immediate(Bot(2)), say=lambda _line: None, clock=chain.clock,
    )  # fmt: skip
    assert play_both(alice, bob) == {"alice": "concluded", "bob": "concluded"}
    assert stored_when_acknowledged and all(stored_when_acknowledged)


def test_a_message_the_match_could_not_keep_is_never_acknowledged_so_the_broker_delivers_it_again(tmp_path):
    channel = terms("xo", rounds=1)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    bob = match(BOB, channel, tmp_path, broker, chain)
    handled = bob._on_message(topic(bob.id, BOB.public_key), b"a state")

    def disk_full(_payload: bytes, durable: bool = True) -> None:
        raise OSError("disk full")

    bob.receive = disk_full
    with pytest.raises(OSError, match="disk full"):
        bob._drain(0.1)
    assert handled is not None and not handled.done()


def test_a_reply_waits_for_one_commit_of_the_state_received_and_the_answer_and_is_sent_after_it(tmp_path):
    channel = terms("xo", rounds=1)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice, bob = (match(s, channel, tmp_path, broker, chain) for s in (ALICE, BOB))
    alice.start()
    bob.start()
    on_disk = Store(tmp_path / f"{ALICE.public_key}.sqlite")
    sent_after_commit: list[bool] = []
    publish = alice.session.publish

    def publishing(where: str, payload: bytes, timeout: float) -> None:
        sent_after_commit.append(decode_message(payload).state in on_disk.all_states(alice.id))
        publish(where, payload, timeout)

    alice.session.publish = publishing
    alice.step(0)  # Alice's first move: sent to Bob, who answers it
    bob.step(0)
    commits = alice.store.commits
    alice.step(0)  # Bob's move comes in, and Alice answers it
    assert alice.channel.latest.state.turn == 3 and alice.store.commits == commits + 1
    assert sent_after_commit == [True, True]
    for side in (alice, bob):
        side.session.close()


def test_a_message_on_another_topic_is_dropped_unread_as_a_broker_may_deliver_retained_ones_of_other_topics(tmp_path):
    channel = terms("xo", rounds=1)
    bob = match(BOB, channel, tmp_path, FakeBroker(), FakeChain(channel.fixed))
    assert bob._on_message("xo/chips/offers/xo/someone/1", b"an offer") is None
    assert bob.inbox.empty()
    assert bob._on_message(topic(bob.id, BOB.public_key), b"a state") is not None
    assert bob.inbox.qsize() == 1


def test_junk_from_anyone_on_the_broker_is_refused_counted_and_not_kept_and_the_match_goes_on(tmp_path):
    channel = terms("rps", rounds=2)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice, bob = (match(s, channel, tmp_path, broker, chain) for s in (ALICE, BOB))
    mallory = Signer.from_hex("00" * 31 + "09")
    forged = tx.signed_state(channel.fixed, State(alice.id, 1, False, rps_app.INITIAL, (100, 100)), ALICE)
    forged = forged._replace(signatures=(None, bytes.fromhex(mallory.sign(b"x"))))
    for target in (ALICE, BOB):
        for junk in (b"\xff" * 100, b"", encode_message(forged)) * 100:
            broker.publish(topic(alice.id, target.public_key), junk)
    assert play_both(alice, bob) == {"alice": "concluded", "bob": "concluded"}
    assert alice.refused == bob.refused == 300
    assert alice.store.evidence(alice.id) == bob.store.evidence(bob.id) == []


class Crashing(Bot):
    """Dies after ``moves`` moves, as a process killed with ``kill -9`` would stop (nothing after it runs)."""

    def __init__(self, seed: int, moves: int) -> None:
        super().__init__(seed)
        self.left = moves

    def xo_space(self, board: str, mark: str) -> int:
        if self.left == 0:
            raise SystemExit("killed")
        self.left -= 1
        return super().xo_space(board, mark)


def test_a_player_stopped_mid_match_resumes_from_its_store(tmp_path):
    channel = terms("xo", rounds=2)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice = match(ALICE, channel, tmp_path, broker, chain)
    bob = match(BOB, channel, tmp_path, broker, chain, chooser=Crashing(7, moves=2))
    thread, outcome = run_alone(alice)
    with pytest.raises(SystemExit):
        bob.run(LIMIT)
    turn_when_killed = bob.store.states(bob.id)[-1][0]
    assert turn_when_killed >= 4
    again = match(BOB, channel, tmp_path, broker, chain)
    assert again.run(LIMIT) == "concluded"
    thread.join(LIMIT)
    assert outcome == {"alice": "concluded"}
    assert chain.submitted == ["conclude"]
    assert chain.record.payout == alice.channel.latest.state.balances


def run_until(side: Match, stop: threading.Event) -> tuple[threading.Thread, dict[str, object]]:
    """``side``'s loop in a thread of its own, pass after pass, until the match ends or ``stop`` is set."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            side.start()
            while not stop.is_set():
                ended = side.step()
                if ended:
                    outcome["ended"] = ended
                    return
        except BaseException as error:
            outcome["ended"] = error
        finally:
            if side.session is not None:
                side.session.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def stopped_mid_match(tmp_path: Path) -> tuple[Match, FakeChain, FakeBroker, ChannelTerms]:
    """Alice and Bob play until Bob is stopped before his move; Alice, left waiting for it, is stopped then."""
    channel = terms("xo", rounds=3)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice = match(ALICE, channel, tmp_path, broker, chain)
    bob = match(BOB, channel, tmp_path, broker, chain, chooser=Crashing(3, moves=3))
    stop = threading.Event()
    thread, outcome = run_until(alice, stop)
    with pytest.raises(SystemExit):
        bob.run(LIMIT)
    bobs_last = bob.store.states(bob.id)[-1][0]  # Alice's move, which he had kept before he was asked for his
    wait_for(lambda: alice.channel is not None and alice.channel.latest.state.turn >= bobs_last)
    stop.set()
    thread.join(LIMIT)
    assert outcome == {}  # Alice's match never ended: it waits on Bob
    assert alice.channel.latest.state.turn == bobs_last and bobs_last % 2 == 1  # Alice moved last: it is Bob's move
    return alice, chain, broker, channel


def test_the_watchtower_answers_a_challenge_at_its_latest_state_with_the_next_move(tmp_path):
    alice, chain, _broker, channel = stopped_mid_match(tmp_path)
    chain.submit(tx.challenge(ALICE, channel.fixed, alice.channel.proof()), "a challenge")
    tower = match(BOB, channel, tmp_path, FakeBroker(), chain, chooser=Bot(1))
    tower.defend_offline(chain.record)
    assert chain.submitted == ["challenge", "respond"]
    assert chain.record.challenge is None and chain.record.turn == alice.channel.latest.state.turn + 1


def test_the_watchtower_checkpoints_a_newer_state_against_a_stale_challenge(tmp_path):
    alice, chain, _broker, channel = stopped_mid_match(tmp_path)
    (_, older), (_, old) = alice.store.states(alice.id, 4)[:2]
    chain.submit(tx.challenge(ALICE, channel.fixed, (older, old)), "a stale challenge")
    tower = match(BOB, channel, tmp_path, FakeBroker(), chain, chooser=Bot(1))
    tower.defend_offline(chain.record)
    assert chain.submitted == ["challenge", "checkpoint"]
    assert chain.record.challenge is None and chain.record.turn == alice.channel.latest.state.turn


def test_a_joiner_whose_opener_never_moves_challenges_at_turn_0_and_both_deposits_come_back(tmp_path):
    channel = terms("xo")
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    bob = match(BOB, channel, tmp_path, broker, chain, patience=0.3)
    thread, outcome = run_alone(bob, name="bob")
    wait_for(lambda: chain.record.challenge is not None)
    assert chain.record.turn == 0 and chain.record.challenge.challenger == BOB.public_key
    chain.now = chain.record.challenge.deadline + 2
    thread.join(LIMIT)
    assert outcome == {"bob": "finalized"}
    assert chain.submitted == ["challenge", "finalize"]
    assert chain.record.payout == (100, 100)


def test_the_opener_answers_a_challenge_at_turn_0_with_the_first_move(tmp_path):
    channel = terms("xo")
    chain = FakeChain(channel.fixed)
    assert chain.record.state is not None
    chain.submit(tx.challenge(BOB, channel.fixed, tx.chain_turn_zero(chain.record.state)), "a challenge at turn 0")
    tower = match(ALICE, channel, tmp_path, FakeBroker(), chain, chooser=Bot(1))
    tower.defend_offline(chain.record)
    assert chain.submitted == ["challenge", "respond"]
    assert chain.record.challenge is None and chain.record.turn == 1


def test_a_peer_back_further_on_is_answered_at_once_and_old_states_replayed_at_most_once_a_second(tmp_path):
    channel = terms("xo", rounds=1)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice, bob = (match(s, channel, tmp_path, broker, chain) for s in (ALICE, BOB))
    alice.start(), bob.start()
    for _ in range(10):  # in turn, one thread: alice plays turns 1 and 3, bob turn 2
        if alice.channel.latest.state.turn >= 3:
            break
        alice.step(0), bob.step(0)
    assert alice.channel.latest.state.turn == 3
    bobs = {turn: encode_message(signed) for turn, signed in bob.store.states(bob.id, 10)}
    to_bob = topic(alice.id, BOB.public_key)

    def answers() -> int:
        return sum(1 for where, _payload in broker.published if where == to_bob)

    sent = answers()
    for turn, answered in ((0, 1), (0, 0), (2, 1), (2, 0), (0, 0)):  # the chain's clock stands still meanwhile
        alice.receive(bobs[turn])
        assert answers() - sent == answered, turn
        sent = answers()
    chain.now += 1.0
    alice.receive(bobs[0])
    assert answers() - sent == 1


@pytest.mark.parametrize(("held_up", "broker_away", "broker_lag", "challenged"),
                         [(0.0, False, 0.0, True), (5.0, False, 0.0, False), (1.5, False, 0.0, True),
                          (1.5, True, 0.0, False), (1.5, False, 0.5, True), (1.5, False, 3.0, False)])  # fmt: skip
def test_patience_counts_only_the_time_the_opponent_could_have_been_heard(tmp_path, held_up, broker_away, broker_lag,
                                                                          challenged):  # fmt: skip
    """A pass seconds late (the house too busy to run it), a broker away, or one seconds behind (a crowd's messages
    queued in it) is no silence of the opponent."""
    channel = terms("xo")
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice = match(ALICE, channel, tmp_path, broker, chain)
    alice.start()
    alice.step(0)  # the first move: now bob's to answer
    assert alice.channel is not None and alice.channel.latest.state.turn == 1
    alice.patience = 3.0
    now = time.monotonic()
    alice._progress, alice._last_pass = now - 4.0, now - held_up
    if broker_away:
        alice.session.connected = False  # type: ignore[union-attr]
    alice.session.lag = broker_lag  # type: ignore[union-attr]
    alice.step(0)
    assert ("challenge" in chain.submitted) is challenged


def test_a_silent_peer_is_sent_the_latest_state_again_less_and_less_often_up_to_a_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(match_loop, "IDLE_RESEND_SECONDS", 0.05)
    monkeypatch.setattr(match_loop, "IDLE_RESEND_MAX_SECONDS", 0.2)
    channel = terms("xo")
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice = match(ALICE, channel, tmp_path, broker, chain)
    sent: list[tuple[float, bytes]] = []
    broker.drop = lambda _topic, payload: sent.append((time.monotonic(), payload)) or False
    thread, outcome = run_alone(alice, limit=3.0)
    thread.join(LIMIT)
    assert isinstance(outcome["alice"], TimeoutError)  # bob never came: no challenge without patience
    move = alice.channel.latest.signed
    times = [at for at, payload in sent if decode_message(payload) == move]  # the move, then its resends
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    for k, gap in enumerate(gaps):
        assert gap >= min(0.05 * 2**k, 0.2) - 0.01  # doubling: 0.05, 0.1, 0.2, then the bound
    assert len(gaps) >= 7  # still resent at the bound: doubling on (0.4, 0.8, 1.6) would fit 5 in 3 s
