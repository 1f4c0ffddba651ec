"""Tournaments as a client reads them from the chain, and what a player is due to do next in one. Pure but for
the thin :class:`TournamentReader` over a REST API.

Every player's client runs the same plan, so nobody directs: the start, each result and
each advance are sent by one designated player at once and by the others only if it
has not come a few seconds later (any of them may: the chain takes the first and
refuses the rest), so a field of bots runs a whole tournament with few transactions.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple

from chips_tp.channel import channel_id
from chips_tp.family import NAMESPACE, TOURNAMENT_TYPE, channel_address, tournament_address
from chips_tp.state import Channel, decode_channel
from chips_tp.tournament import CANCELLED, CLOSED, JOINING, Tournament, match_fixed, played
from chips_tp.tournament_ranking import Standing, standings
from chips_tp.tournament_state import decode_tournament
from client_core.rest import RestClient

#: A player not designated for a start, a result or an advance sends it this long after it became due.
FALLBACK_SECONDS: Final = 3.0
START: Final = "start"
PLAY: Final = "play"
RESULT: Final = "result"
ADVANCE: Final = "advance"
DONE: Final = "done"


class Action(NamedTuple):
    """What is due: ``kind`` (start, play, result, advance, done), the board it concerns, whether this player is the
    one designated to send it at once (the others wait :data:`FALLBACK_SECONDS` first), and from when it is due
    (chain time; None: now)."""

    kind: str
    board: int | None = None
    designated: bool = True
    at: float | None = None


def tournaments_in(entries: Iterable[tuple[str, bytes]]) -> list[Tournament]:
    """The tournament records among state ``entries`` (address, data), by name."""
    prefix = NAMESPACE + TOURNAMENT_TYPE
    found = [decode_tournament(address, data) for address, data in entries if address.startswith(prefix)]
    return sorted((t for t in found if t is not None), key=lambda t: t.name)


def my_board(tournament: Tournament, key: str) -> int | None:
    """The board of ``key``'s match in the round in play (None: no match, a bye, or not in it)."""
    if not tournament.round or key not in tournament.players:
        return None
    me = tournament.players.index(key)
    for board, pairing in enumerate(tournament.pairings[-1]):
        if played(pairing) and me in (pairing.white, pairing.black):
            return board
    return None


def match_address(tournament: Tournament, board: int) -> str:
    """The address of the channel of ``board`` in the round in play."""
    return channel_address(channel_id(match_fixed(tournament, tournament.round, board)))


def next_action(tournament: Tournament, key: str, closed: bool, now: float) -> Action:
    """What ``key`` is due to do in ``tournament`` at ``now``; ``closed`` says whether their match in the round in play
    (if any) is closed on the chain. A match not over when its round is over is left for the advance."""
    if tournament.status in (CLOSED, CANCELLED):
        return Action(DONE)
    players = tournament.players
    if tournament.status == JOINING:
        full = len(players) >= tournament.max_players
        return Action(START, None, bool(players) and players[0] == key, None if full else tournament.join_until)
    board = my_board(tournament, key)
    current = tournament.pairings[-1]
    if board is not None and current[board].result is None:
        if not closed and tournament.round_ends is not None and now < tournament.round_ends:
            return Action(PLAY, board)
        if closed:
            return Action(RESULT, board, players[current[board].white] == key)  # type: ignore[index]
    complete = all(p.result is not None for p in current)
    designated = players[tournament.round % len(players)] == key
    return Action(ADVANCE, None, designated, None if complete else tournament.round_ends)


def table(tournament: Tournament) -> list[Standing]:
    """The standings so far (seed order before the start)."""
    return standings(tournament.format, len(tournament.players), tournament.pairings)


class TournamentReader:
    """Tournaments and their channels on a REST API."""

    def __init__(self, client: RestClient) -> None:
        self.client = client

    def tournament(self, name: str) -> Tournament | None:
        """The tournament ``name``, or None."""
        address = tournament_address(name)
        data = self.client.get_state(address)
        return decode_tournament(address, data) if data else None

    def tournaments(self) -> list[Tournament]:
        """Every tournament on the chain."""
        return tournaments_in(self.client.list_state(NAMESPACE + TOURNAMENT_TYPE))

    def match(self, tournament: Tournament, board: int) -> Channel | None:
        """The channel of ``board`` in the round in play."""
        address = match_address(tournament, board)
        data = self.client.get_state(address)
        return decode_channel(address, data) if data else None
