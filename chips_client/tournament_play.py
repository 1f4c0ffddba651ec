"""One player's side of a whole tournament: each match as its round comes, and the start, results and advances due.

The loop reads the tournament, asks :func:`chips_client.tournaments.next_action` what is
due, and does it: a match is played by the caller's ``play_match`` (the channel's match
loop, which says whether the channel closed), anything else is one transaction. A
transaction the chain refuses is usually one another player sent first, so it is not an
error: the loop reads again. Chain, match and clock are given to it, so tests drive it
without a ledger.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final, Protocol

from chips_client import tournament_transactions as ttx
from chips_client.match import CHAIN_RETRY_SECONDS
from chips_client.tournaments import ADVANCE, DONE, FALLBACK_SECONDS, PLAY, RESULT, START, Action, my_board, next_action
from chips_tp.state import CLOSED
from chips_tp.state import Channel as Record
from chips_tp.tournament import Tournament
from client_core.broker import BrokerError
from client_core.errors import Rejected, TimedOut, Unavailable
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer
from xo_core.text import quoted

#: How often the tournament is read while waiting for something to become due (seconds).
POLL_SECONDS: Final = 0.5


class Reader(Protocol):
    """What the loop reads: :class:`chips_client.tournaments.TournamentReader` or a test's fake."""

    def tournament(self, name: str) -> Tournament | None:
        """The tournament ``name``, or None."""

    def match(self, tournament: Tournament, board: int) -> Record | None:
        """The channel of ``board`` in the round in play."""


class NoSuchTournament(Exception):
    """The tournament is not on the chain."""


class TournamentPlay:
    """One player's side of the tournament ``name``."""

    def __init__(
        self, *, name: str, signer: Signer, reader: Reader, submit: Callable[[Transaction, str], None],
        play_match: Callable[[Tournament, int], bool], say: Callable[[str], None],
        clock: Callable[[], float] = time.time, sleep: Callable[[float], None] = time.sleep,
    ) -> None:  # fmt: skip
        self.name, self.signer, self.reader, self.submit = name, signer, reader, submit
        self.play_match, self.say, self.clock, self.sleep = play_match, say, clock, sleep
        self.key = signer.public_key
        self._seen: dict[tuple[object, ...], float] = {}
        """When each due step (kind, status, round, board) was first seen due."""
        self._closed: set[tuple[int, int]] = set()
        """The matches (round, board) this player played to the channel's close."""
        self._committed: set[tuple[object, ...]] = set()
        """The steps this player's own transactions did: never sent twice, whatever a lagging read shows."""
        self._announced: tuple[str, int] | None = None
        self.sent = 0
        """Transactions this player sent (committed or refused)."""

    def run(self, time_limit: float | None = None) -> Tournament:
        """Take part until the tournament is closed or cancelled; its final record."""
        ends = None if time_limit is None else time.monotonic() + time_limit
        retry, lost = 0.0, False
        while ends is None or time.monotonic() < ends:
            try:
                tournament = self.reader.tournament(self.name)
                if lost:
                    self.say("the REST API answers again")
                retry, lost = 0.0, False
                final = self._step(tournament)
            except BrokerError:
                raise
            except (Unavailable, TimedOut) as error:  # the REST API went away: said once, tried again, capped
                retry = min(max(2 * retry, CHAIN_RETRY_SECONDS[0]), CHAIN_RETRY_SECONDS[1])
                if not lost:
                    self.say(f"{error.message}; retrying")
                lost = True
                self.sleep(retry)
                continue
            if final is not None:
                return final
        raise TimeoutError(f"tournament {quoted(self.name)} did not end within {time_limit:g} s")

    def _step(self, tournament: Tournament | None) -> Tournament | None:
        """Do what is due in ``tournament`` as just read; the final record once it is closed or cancelled."""
        if tournament is None:
            raise NoSuchTournament(f"there is no tournament {quoted(self.name)}: 'chips tournament list' lists them")
        self._announce(tournament)
        board = my_board(tournament, self.key)
        closed = False
        if board is not None and tournament.pairings[-1][board].result is None:
            closed = (tournament.round, board) in self._closed
            if not closed:
                channel = self.reader.match(tournament, board)
                closed = channel is not None and channel.status == CLOSED
        now = self.clock()
        action = next_action(tournament, self.key, closed, now)
        if action.kind == DONE:
            return tournament
        if action.kind == PLAY:
            assert action.board is not None
            if self.play_match(tournament, action.board):
                self._closed.add((tournament.round, action.board))
            return None
        self._when_due(tournament, action, now)
        return None

    def _when_due(self, tournament: Tournament, action: Action, now: float) -> None:
        """Send the transaction of ``action`` if it is due for this player at ``now``, else wait a little."""
        kind, board, designated, at = action
        if at is not None and now < at:
            self.sleep(min(at - now, POLL_SECONDS))
            return
        key = (kind, tournament.status, tournament.round, board)
        if key in self._committed:  # a read that does not show this player's own commit yet
            self.sleep(POLL_SECONDS / 5)
            return
        first = self._seen.setdefault(key, now)
        if not designated and now - first < FALLBACK_SECONDS:
            self.sleep(min(POLL_SECONDS, FALLBACK_SECONDS - (now - first)))
            return
        if kind == START:
            transaction = ttx.start(self.signer, self.name)
        elif kind == RESULT:
            assert board is not None
            transaction = ttx.result(self.signer, tournament, tournament.round, board)
        else:
            assert kind == ADVANCE
            transaction = ttx.advance(self.signer, self.name)
        self.sent += 1
        try:
            self.submit(transaction, f"the {kind}")
        except Rejected:  # sent by another player first, or the chain's clock is behind ours: read again
            self.sleep(POLL_SECONDS)
            return
        self._committed.add(key)

    def _announce(self, tournament: Tournament) -> None:
        """Say each new round (and the start and the end) once."""
        now = (tournament.status, tournament.round)
        if now == self._announced:
            return
        self._announced = now
        label = f"tournament {quoted(self.name)}"
        if not tournament.round:
            self.say(f"{label}: {len(tournament.players)} of {tournament.max_players} players in, {tournament.status}")
            return
        board = my_board(tournament, self.key)
        if tournament.status != "playing":
            self.say(f"{label} is {tournament.status}")
        elif board is None:
            self.say(f"{label}, round {tournament.round} of {tournament.rounds}: no match for you this round (a bye "
                     "or out)")  # fmt: skip
        else:
            self.say(f"{label}, round {tournament.round} of {tournament.rounds}: your match is board {board}")
