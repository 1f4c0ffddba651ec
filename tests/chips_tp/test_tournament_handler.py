"""Tournaments in the chips handler against an in-memory validator: from create to the payout, and every attack refused.

Matches are the channels the tournament writes; the tests close them as players would
(a final state both signed, or a challenge that runs out) and record their results.
Chips are counted in accounts and pools after every step: they never change in total.
"""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chips_client import tournament_transactions as ttx
from chips_client import transactions as tx
from chips_tp import rps_app, xo_app
from chips_tp.channel import MAX_AMOUNT, channel_id
from chips_tp.channel_state import State
from chips_tp.family import NAMESPACE, TOURNAMENT_TYPE, tournament_address
from chips_tp.state import CLOSED, RUNNING
from chips_tp.tournament import (
    BLACK,
    BYE,
    CANCELLED,
    DRAW,
    JOINING,
    KNOCKOUT,
    PLAYING,
    SWISS,
    UNPLAYED,
    WHITE,
    Tournament,
    match_channel,
    match_fixed,
    played,
)  # fmt: skip
from chips_tp.tournament import CLOSED as TOURNAMENT_CLOSED
from chips_tp.tournament_ops import Create, Result
from chips_tp.tournament_state import decode_tournament
from tests.chips_tp.harness import FLOOR, ISSUER, NOW, Chain
from xo_core.signing import Signer

PLAYERS = tuple(Signer.from_hex(f"{index + 16:064x}") for index in range(9))
OUTSIDER = Signer.from_hex(f"{99:064x}")
ROUND = 3 * FLOOR
ISSUED = 1000


def terms(name: str = "spring", fmt: str = SWISS, rounds: int = 2, players: tuple[int, int] = (2, 8),
          prizes: tuple[int, ...] = (60, 30, 10), buy_in: int = 10) -> Create:  # fmt: skip
    return Create(name, "xo", fmt, rounds if fmt == SWISS else 0, buy_in, players, 60, ROUND, prizes)


@pytest.fixture
def chain() -> Chain:
    chain = Chain()
    for player in (*PLAYERS, OUTSIDER):
        chain.submit(tx.issue(ISSUER, player.public_key, ISSUED))
    return chain


def record(chain: Chain, name: str = "spring") -> Tournament:
    found = decode_tournament(tournament_address(name), chain.state[tournament_address(name)])
    assert found is not None
    return found


def total_chips(chain: Chain) -> int:
    """Chips in every account and every pool: a tournament's channels hold points, not chips."""
    pools = sum(
        record(chain, t.name).pool
        for t in (decode_tournament(a, d) for a, d in chain.state.items() if a.startswith(NAMESPACE + TOURNAMENT_TYPE))
        if t is not None
    )
    return pools + sum(chain.balance(player) for player in (*PLAYERS, OUTSIDER))


def started(chain: Chain, count: int, op: Create | None = None) -> Tournament:
    op = op or terms()
    chain.submit(ttx.create(OUTSIDER, op))
    for player in PLAYERS[:count]:
        chain.submit(ttx.enter(player, op.name, op.buy_in))
    chain.at(NOW + 60)
    chain.submit(ttx.start(OUTSIDER, op.name))
    return record(chain, op.name)


def signer_of(key: str) -> Signer:
    return next(p for p in PLAYERS if p.public_key == key)


def conclude(chain: Chain, tournament: Tournament, board: int, balances: tuple[int, int]) -> None:
    """Both players of ``board`` sign a final state with ``balances`` and white concludes."""
    fixed = match_fixed(tournament, tournament.round, board)
    final = State(channel_id(fixed), 9, True, xo_app.INITIAL, balances)
    white, black = (signer_of(key) for key in fixed.participants)
    chain.submit(tx.conclude(white, fixed, tx.signed_state(fixed, final, white, black)))


def play_round(chain: Chain, outcomes: dict[int, tuple[int, int]]) -> Tournament:
    """Conclude and record the boards in ``outcomes``; the others stay unplayed."""
    tournament = record(chain)
    for board, balances in outcomes.items():
        conclude(chain, tournament, board, balances)
        chain.submit(ttx.result(OUTSIDER, tournament, tournament.round, board))
    return record(chain)


def test_a_swiss_of_four_runs_to_the_payout_and_conserves_every_chip(chain):
    before = total_chips(chain)
    tournament = started(chain, 4)
    assert tournament.status == PLAYING and tournament.round == 1 and tournament.pool == 40
    assert sorted(tournament.players) == sorted(p.public_key for p in PLAYERS[:4])
    assert [played(p) for p in tournament.pairings[0]] == [True, True]
    for board in range(2):
        channel = chain.channel(match_fixed(tournament, 1, board))
        assert (channel.status, channel.held, channel.fixed.deposits, channel.turn) == (RUNNING, 2, (0, 0), 0)
    assert total_chips(chain) == before

    after_one = play_round(chain, {0: (2, 0), 1: (1, 1)})
    assert [p.result for p in after_one.pairings[0]] == [WHITE, DRAW]
    chain.submit(ttx.advance(OUTSIDER, "spring"))
    second = record(chain)
    assert second.round == 2
    met = {frozenset((p.white, p.black)) for p in second.pairings[0]}
    assert not met & {frozenset((p.white, p.black)) for p in second.pairings[1]}

    play_round(chain, {0: (0, 2), 1: (2, 0)})
    chain.submit(ttx.advance(OUTSIDER, "spring"))
    closed = record(chain)
    assert closed.status == TOURNAMENT_CLOSED and closed.pool == 0
    assert closed.payout is not None
    assert [paid for _key, paid in closed.payout] == [24, 12, 4]
    for key, paid in closed.payout:
        assert chain.balance(signer_of(key)) == ISSUED - 10 + paid
    assert total_chips(chain) == before


def test_closing_a_tournament_channel_pays_nobody(chain):
    tournament = started(chain, 2)
    white, black = (signer_of(k) for k in match_fixed(tournament, 1, 0).participants)
    conclude(chain, tournament, 0, (2, 0))
    assert chain.balance(white) == chain.balance(black) == ISSUED - 10
    assert chain.channel(match_fixed(tournament, 1, 0)).payout == (2, 0)


def test_a_knockout_of_three_gives_the_top_seed_a_bye_sends_black_through_a_draw_and_pays_the_winner(chain):
    tournament = started(chain, 3, terms(fmt=KNOCKOUT, prizes=(100,)))
    assert tournament.rounds == 2
    first = tournament.pairings[0]
    assert first[0] == (0, None, BYE) and first[1].white == 1 and first[1].black == 2
    play_round(chain, {1: (1, 1)})
    assert record(chain).pairings[0][1].result == DRAW
    chain.submit(ttx.advance(OUTSIDER, "spring"))
    final = record(chain)
    assert final.pairings[1] == ((0, 2, None),)
    play_round(chain, {0: (0, 2)})
    chain.submit(ttx.advance(OUTSIDER, "spring"))
    closed = record(chain)
    assert closed.payout == ((closed.players[2], 30),)
    assert chain.balance(signer_of(closed.players[2])) == ISSUED + 20


def test_a_player_who_does_not_answer_a_challenge_forfeits(chain):
    tournament = started(chain, 2)
    fixed = match_fixed(tournament, 1, 0)
    black = signer_of(fixed.participants[1])
    turn_zero = chain.channel(fixed).state
    assert turn_zero is not None
    chain.submit(tx.challenge(black, fixed, tx.chain_turn_zero(turn_zero)))
    chain.at(NOW + 60 + fixed.duration)
    chain.submit(tx.finalize(black, fixed))
    chain.submit(ttx.result(black, tournament, 1, 0))
    assert record(chain).pairings[0][0].result == BLACK


def test_a_pairing_nobody_plays_is_a_loss_for_both_once_the_round_is_over(chain):
    started(chain, 4)
    play_round(chain, {0: (2, 0)})
    refusal = chain.refused(ttx.advance(OUTSIDER, "spring"))
    assert refusal == (
        f"round 1 of tournament 'spring' may be advanced from {NOW + 60 + ROUND}: {ROUND} seconds left and 1 result "
        "missing"
    )
    chain.at(NOW + 60 + ROUND)
    chain.submit(ttx.advance(PLAYERS[0], "spring"))
    assert record(chain).pairings[0][1].result == UNPLAYED


def test_too_few_players_get_every_buy_in_back(chain):
    before = total_chips(chain)
    tournament = started(chain, 2, terms(players=(3, 8)))
    assert tournament.status == CANCELLED and tournament.pool == 0
    assert tournament.payout == tuple((p.public_key, 10) for p in PLAYERS[:2])
    assert chain.balance(PLAYERS[0]) == ISSUED and total_chips(chain) == before


def test_a_full_tournament_starts_before_its_entries_close(chain):
    op = terms(players=(2, 2), prizes=(100,))
    chain.submit(ttx.create(OUTSIDER, op))
    chain.submit(ttx.enter(PLAYERS[0], "spring", 10))
    assert chain.refused(ttx.start(OUTSIDER, "spring")) == (
        "tournament 'spring' starts at 1700000060 or when full: 60 seconds left, 1 of 2 players in"
    )
    chain.submit(ttx.enter(PLAYERS[1], "spring", 10))
    assert chain.refused(ttx.enter(PLAYERS[2], "spring", 10)) == "tournament 'spring' is full (2 of 2 players)"
    chain.submit(ttx.start(OUTSIDER, "spring"))
    assert record(chain).status == PLAYING


def test_entries_are_refused_twice_at_another_price_late_or_unpaid(chain):
    chain.submit(ttx.create(OUTSIDER, terms()))
    chain.submit(ttx.enter(PLAYERS[0], "spring", 10))
    assert chain.refused(ttx.enter(PLAYERS[0], "spring", 10)) == "you are in tournament 'spring' already"
    assert chain.refused(ttx.enter(PLAYERS[1], "spring", 100)) == (
        "the buy-in of tournament 'spring' is 10 chips, not the 100 you agreed to"
    )
    poor = Signer.from_hex(f"{77:064x}")
    assert "needs 10 chips but the account" in chain.refused(ttx.enter(poor, "spring", 10))
    assert chain.refused(ttx.enter(PLAYERS[1], "autumn", 10)) == (
        "there is no tournament 'autumn': 'chips tournament list' shows them"
    )
    chain.at(NOW + 60)
    assert chain.refused(ttx.enter(PLAYERS[1], "spring", 10)) == (
        "the entries of tournament 'spring' closed at 1700000060; it starts next"
    )


def test_a_player_leaves_before_the_start_with_their_buy_in_and_nobody_else_can(chain):
    chain.submit(ttx.create(OUTSIDER, terms()))
    chain.submit(ttx.enter(PLAYERS[0], "spring", 10))
    assert chain.refused(ttx.leave(PLAYERS[1], "spring")).endswith(
        "is not in tournament 'spring': only its players may leave it"
    )
    chain.submit(ttx.leave(PLAYERS[0], "spring"))
    assert chain.balance(PLAYERS[0]) == ISSUED and record(chain).players == () and record(chain).pool == 0


def test_results_are_refused_for_the_wrong_round_twice_unclosed_or_for_a_bye(chain):
    tournament = started(chain, 3)
    bye = next(board for board, p in enumerate(tournament.pairings[0]) if not played(p))
    assert chain.refused(ttx.result(OUTSIDER, tournament, 1, 0)) == (
        "the channel of board 0 of round 1 is still running: its result enters when it is closed"
    )
    for board, problem in ((bye, f"board {bye} of round 1 is a bye: it has no match to record"),
                           (7, "round 1 of tournament 'spring' has 2 boards, from 0: no board 7")):  # fmt: skip
        bare = ttx._signed(OUTSIDER, Result("spring", 1, board), ttx.tournament_addresses("spring"))
        assert chain.refused(bare) == problem
    play_round(chain, {0: (2, 0)})
    assert chain.refused(ttx.result(OUTSIDER, tournament, 1, 0)) == (
        "the result of board 0 of round 1 is recorded already (white)"
    )
    chain.submit(ttx.advance(OUTSIDER, "spring"))
    assert chain.refused(ttx.result(OUTSIDER, tournament, 1, 0)) == (
        "round 2 of tournament 'spring' is in play: a result of round 1 comes too late"
    )


def test_a_closed_tournament_pays_once(chain):
    started(chain, 2, terms(rounds=1))
    play_round(chain, {0: (2, 0)})
    chain.submit(ttx.advance(OUTSIDER, "spring"))
    assert chain.refused(ttx.advance(OUTSIDER, "spring")) == (
        "tournament 'spring' is closed and paid out already: that is done only while it is playing"
    )
    assert "closed and paid out already" in chain.refused(ttx.start(OUTSIDER, "spring"))


def test_a_swiss_that_cannot_pair_again_ends_after_the_rounds_played(chain):
    started(chain, 2, terms(rounds=3, prizes=(100,)))
    play_round(chain, {0: (1, 1)})
    chain.submit(ttx.advance(OUTSIDER, "spring"))
    closed = record(chain)
    assert closed.status == TOURNAMENT_CLOSED and len(closed.pairings) == 1
    assert closed.payout == ((closed.players[0], 20),)


@pytest.mark.parametrize(
    ("op", "problem"),
    [
        (terms(prizes=(60, 30)), "the prizes add up to 90 percent, not 100"),
        (terms(players=(5, 3)), "the fewest players (5) are more than the most (3)"),
        (terms(players=(2, 2), prizes=(50, 30, 20)), "3 prizes for at most 2 players"),
        (dataclasses.replace(terms(), round_seconds=3 * FLOOR - 1),
         "a round of 179 s leaves 59 s to answer a challenge in its matches, below this network's floor of 60 s (the "
         "setting chips.min_challenge_seconds): make rounds of at least 180 s"),
        (terms(buy_in=MAX_AMOUNT // 2, players=(2, 3)),
         f"3 buy-ins of {MAX_AMOUNT // 2} chips would be more than {MAX_AMOUNT} (overflow)"),
        (terms(rounds=0), "a swiss needs its number of rounds (1 to 64)"),
        (dataclasses.replace(terms(fmt=KNOCKOUT), rounds=2), "a knockout's rounds follow from its field: give 0"),
        (dataclasses.replace(terms(), game="rps"), "an rps match is first to 1 to 25 round wins, not 0"),
        (dataclasses.replace(terms(), first_to=2), "an xo match is one game: its first_to is 0, not 2"),
    ],
)  # fmt: skip
def test_bad_terms_are_refused_saying_what_is_wrong(chain, op, problem):
    assert chain.refused(ttx.create(OUTSIDER, op)) == f"cannot create tournament 'spring': {problem}"


def test_an_rps_first_to_3_gives_each_side_3_points_for_at_most_5_rounds_and_the_more_wins_take_the_match(chain):
    op = dataclasses.replace(terms(fmt=KNOCKOUT, prizes=(100,)), game="rps", first_to=3)
    tournament = started(chain, 2, op)
    assert tournament.first_to == 3
    fixed = match_fixed(tournament, 1, 0)
    assert fixed.app == "rps" and fixed.nonce & 0xFF == 5, "the nonce's last byte is the rounds: 2N - 1"
    written = chain.channel(fixed)
    assert written == match_channel(tournament, 1, 0) and written.held == 6
    white, black = (signer_of(key) for key in fixed.participants)
    final = State(channel_id(fixed), 11, True, rps_app.INITIAL._replace(round=5), (4, 2))  # a round won more than lost
    chain.submit(tx.conclude(white, fixed, tx.signed_state(fixed, final, white, black)))
    chain.submit(ttx.result(OUTSIDER, tournament, 1, 0))
    assert record(chain).pairings[0][0].result == WHITE


def test_a_name_is_used_once(chain):
    chain.submit(ttx.create(OUTSIDER, terms()))
    assert chain.refused(ttx.create(PLAYERS[0], terms())) == (
        "tournament 'spring' exists already (joining): a tournament's name is used once; choose another"
    )
    assert record(chain).status == JOINING


def test_a_start_without_the_prefixes_is_refused_saying_what_to_list(chain):
    chain.submit(ttx.create(OUTSIDER, terms()))
    for player in PLAYERS[:2]:
        chain.submit(ttx.enter(player, "spring", 10))
    chain.at(NOW + 60)
    bare = ttx._signed(OUTSIDER, ttx.Start("spring"), ttx.tournament_addresses("spring"))
    assert "list the prefixes of chips accounts and channels" in chain.refused(bare)


@settings(max_examples=25, deadline=None)
@given(data=st.data(), count=st.integers(2, 9), fmt=st.sampled_from((SWISS, KNOCKOUT)))
def test_any_tournament_pays_out_its_pool_exactly_and_conserves_chips(data, count, fmt):
    chain = Chain()
    for player in (*PLAYERS, OUTSIDER):
        chain.submit(tx.issue(ISSUER, player.public_key, ISSUED))
    before = total_chips(chain)
    started(chain, count, terms(fmt=fmt, rounds=data.draw(st.integers(1, 4)), players=(2, 9), prizes=(50, 25, 15, 10)))
    clock = NOW + 60
    while record(chain).status == PLAYING:
        tournament = record(chain)
        boards = [b for b, p in enumerate(tournament.pairings[-1]) if played(p)]
        outcomes = {b: data.draw(st.sampled_from(((2, 0), (1, 1), (0, 2)))) for b in boards if data.draw(st.booleans())}
        play_round(chain, outcomes)
        if len(outcomes) < len(boards):
            clock += ROUND
            chain.at(clock)
        chain.submit(ttx.advance(OUTSIDER, "spring"))
        assert total_chips(chain) == before
    closed = record(chain)
    assert closed.status == TOURNAMENT_CLOSED and closed.payout is not None
    assert sum(paid for _key, paid in closed.payout) == 10 * count
    met: set[frozenset[int]] = set()
    for number, pairings in enumerate(closed.pairings):
        seated = sorted(p for pairing in pairings for p in (pairing.white, pairing.black) if p is not None)
        if fmt == SWISS or number == 0:  # a Swiss seats everyone every round; a knockout, everyone in round 1
            assert seated == list(range(count))
        assert len(set(seated)) == len(seated)
        for pairing in (p for p in pairings if played(p)):
            assert frozenset((pairing.white, pairing.black)) not in met  # no pair meets twice, in either format
            met.add(frozenset((pairing.white, pairing.black)))
    assert len({key for key, _paid in closed.payout}) == len(closed.payout)
    assert total_chips(chain) == before
    assert all(chain.channel(match_fixed(closed, r + 1, b)).status in (CLOSED, RUNNING)
               for r, rnd in enumerate(closed.pairings) for b, p in enumerate(rnd) if played(p))  # fmt: skip
