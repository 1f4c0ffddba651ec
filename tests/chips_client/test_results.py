"""What a closed chips channel counts as for the ratings (``chips_client.results``): the payout's net, in stakes.

Channel records are built as the chain writes them (``chips_tp.state.encode_channel``),
closed on a state whose bytes are the app's own.
"""

from __future__ import annotations

from chips_client.results import MAX_GAMES, finished_games
from chips_tp import rps_app, xo_app
from chips_tp.apps import APPS
from chips_tp.channel import RPS, XO, Fixed, channel_id
from chips_tp.channel_state import State, encode_state
from chips_tp.family import channel_address
from chips_tp.state import CLOSED, RUNNING, Channel, encode_channel
from client_core.ratings import DRAW, LOSS, WIN, Outcome

OPENER, OPPONENT = "02" + "a" * 64, "03" + "b" * 64


def closed(app: str, data: object, payout: tuple[int, int], *, stake: int = 10, status: str = CLOSED) -> bytes:
    deposit = sum(payout) // 2
    fixed = Fixed((OPENER, OPPONENT), app, stake, (deposit, deposit), 3600, 7)
    ident = channel_id(fixed)
    state = encode_state(State(ident, 9, True, data, payout), APPS[app].encode)  # type: ignore[arg-type]
    paid = payout if status == CLOSED else None
    held = 0 if status == CLOSED else 2 * deposit
    return encode_channel(Channel(ident, fixed, status, (True, True), held, 9, state, None, paid))


def outcomes(data: bytes) -> list[Outcome]:
    found, notes = finished_games(channel_address(b"\0" * 32), data)
    assert notes == []
    return [outcome for game in found for outcome in game.outcomes]


def test_an_rps_match_counts_the_stakes_won_and_the_other_rounds_as_draws():
    three_rounds = rps_app.INITIAL._replace(round=3)
    assert outcomes(closed(RPS, three_rounds, (120, 80))) == [Outcome(OPENER, OPPONENT, WIN)] * 2 + [
        Outcome(OPENER, OPPONENT, DRAW)
    ]
    assert outcomes(closed(RPS, three_rounds, (70, 130))) == [Outcome(OPENER, OPPONENT, LOSS)] * 3


def test_an_xo_match_counts_its_net_alone_and_a_level_one_nothing():
    rest = xo_app.XoData(xo_app.PLAY_AGAIN_ME_FIRST, 0, 0)
    assert outcomes(closed(XO, rest, (80, 120))) == [Outcome(OPENER, OPPONENT, LOSS)] * 2
    assert outcomes(closed(XO, rest, (100, 100))) == []
    assert outcomes(closed(XO, rest, (115, 85))) == [Outcome(OPENER, OPPONENT, WIN)]  # 1.5 stakes: one whole


def test_an_open_channel_counts_nothing_and_a_huge_net_is_capped():
    assert outcomes(closed(RPS, rps_app.INITIAL, (100, 100), status=RUNNING)) == []
    assert len(outcomes(closed(XO, xo_app.XoData(xo_app.DRAW, 0, 0), (2000, 0), stake=1))) == MAX_GAMES


def test_a_record_that_is_not_a_channel_is_a_note():
    found, notes = finished_games("7d3d5201" + "0" * 62, b"\xa0")
    assert found == []
    assert len(notes) == 1


def tournament_match(state: State, payout: tuple[int, int]) -> bytes:
    fixed = Fixed((OPENER, OPPONENT), XO, 1, (0, 0), 60, 7 << 8 | 1)
    ident = channel_id(fixed)
    data = encode_state(state._replace(channel=ident), xo_app.encode)  # type: ignore[arg-type]
    return encode_channel(Channel(ident, fixed, CLOSED, (True, True), 0, state.turn, data, None, payout))


def test_a_tournament_match_counts_as_one_game_as_its_tournament_records_it():
    rest = xo_app.XoData(xo_app.PLAY_AGAIN_ME_FIRST, 0, 0)
    assert outcomes(tournament_match(State(b"", 9, True, rest, (2, 0)), (2, 0))) == [Outcome(OPENER, OPPONENT, WIN)]
    assert outcomes(tournament_match(State(b"", 9, True, rest, (1, 1)), (1, 1))) == [Outcome(OPENER, OPPONENT, DRAW)]
    # Finalized at turn 0: the opener, due to move, did not answer the challenge and forfeits.
    turn_zero = State(b"", 0, False, xo_app.INITIAL, (1, 1))
    assert outcomes(tournament_match(turn_zero, (1, 1))) == [Outcome(OPENER, OPPONENT, LOSS)]
