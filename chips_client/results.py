"""The staked matches a closed channel counts as, for the ratings (:mod:`client_core.ratings`). Pure, no I/O.

The chain keeps no record of a match's games: a channel closes on one state (the final
state both signed, for ``conclude``; the challenged state, for ``finalize``), and what it
holds is that state's balances, paid out, and its app data. Every game (xo) or round
(rps) moves exactly one stake from its loser to its winner and a draw moves nothing, so
the payout proves the net result: the opener up ``n`` stakes won ``n`` more games than
they lost. A channel therefore counts as that many wins for the player up (a balance that
is not a whole number of stakes from the deposit, which only a final state both signed
can pay, counts its whole stakes). An rps state also records its round: the rounds
finished that the net does not account for count as draws (a win and a loss cancel out
in chips, and count as two draws). An xo state records no count of games, so a level xo
match counts for nothing. A channel cancelled before play counts for nothing, and at most
:data:`MAX_GAMES` games count per channel. A tournament's match counts as one game, won, lost or drawn
as its tournament records it. docs/ratings.md gives examples.
"""

from __future__ import annotations

from typing import Final

from sawtooth_sdk.processor.exceptions import InternalError

from chips_client.channels import MAX_ROUNDS
from chips_client.moves import rounds_done
from chips_tp.apps import APPS
from chips_tp.channel import RPS
from chips_tp.channel_state import decode_state
from chips_tp.family import CHANNEL_TYPE, NAMESPACE
from chips_tp.state import CLOSED, Channel, decode_channel
from chips_tp.tournament import BLACK, WHITE, is_tournament_channel
from chips_tp.tournament_rules import channel_result
from client_core.ratings import DRAW, LOSS, WIN, Finished, Outcome
from client_core.results_book import Family
from xo_core.canonical import Malformed

MAX_GAMES: Final = MAX_ROUNDS
"""The most games one channel counts as: as many as a match may agree to play (``chips open --rounds``)."""


def finished_games(address: str, data: bytes) -> tuple[list[Finished], list[str]]:
    """The closed, paid-out channel at ``address`` as the games it counts as (none while open), or a note."""
    try:
        channel = decode_channel(address, data)
    except InternalError as error:
        return [], [str(error)]
    if channel is None or channel.status != CLOSED or channel.state is None or channel.payout is None:
        return [], []
    try:
        outcomes = match_outcomes(channel)
    except (Malformed, InternalError) as error:
        return [], [f"the state channel {channel.id.hex()[:8]}... closed on does not decode: {error}"]
    return [Finished(channel.id.hex(), channel.id.hex(), outcomes)], []


def match_outcomes(channel: Channel) -> tuple[Outcome, ...]:
    """The games the channel's payout proves, the opener first in each; :class:`Malformed` if its state is not one.

    A tournament's match (deposits 0) is one game whatever it held: its result as the tournament records it.
    """
    fixed = channel.fixed
    assert channel.state is not None and channel.payout is not None
    if is_tournament_channel(fixed):
        result = channel_result(channel)
        return (Outcome(*fixed.participants, WIN if result == WHITE else LOSS if result == BLACK else DRAW),)
    state = decode_state(channel.state, APPS[fixed.app].decode)
    opener, opponent = fixed.participants
    net = channel.payout[0] - fixed.deposits[0]
    decisive = min(abs(net) // fixed.stake, MAX_GAMES)
    draws = 0
    if fixed.app == RPS:
        draws = min(max(rounds_done(state, 0) - decisive, 0), MAX_GAMES - decisive)
    won = Outcome(opener, opponent, WIN if net > 0 else LOSS)
    return (won,) * decisive + (Outcome(opener, opponent, DRAW),) * draws


FAMILY = Family("chips", NAMESPACE + CHANNEL_TYPE, finished_games)
"""What the ratings read of this family: its name, the prefix of its records, and the reader above."""
