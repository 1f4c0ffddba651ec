"""Tournaments on the page: every tournament (standings, pairings, results), joined and taken part in by a player.

``GET /api/tournaments`` reads them as ``chips tournament show --json`` does
(:func:`chips_client.tournament_view.tournament_json`); the page asks again at every
block, so standings and pairings are live. ``POST /api/tournaments/join`` pays the
player's buy-in, as ``chips tournament join`` does. ``POST /api/tournaments/play`` runs
``chips tournament play``'s loop (:class:`chips_client.tournament_play.TournamentPlay`)
for the player on a thread of its own: it starts the tournament when due, records
results and advances rounds, and plays each of the player's matches as the server plays
any staked match for the page (:class:`xo_web.chips_matches.Matches`): the person moves on
the channel's page (``#/channel/ID``), the computer answering a challenge for them.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Final

from chips_client import tournament_transactions as ttx
from chips_client.chain import RestChain
from chips_client.store import ChannelTerms
from chips_client.tournament_play import TournamentPlay
from chips_client.tournament_view import tournament_json
from chips_client.tournaments import TournamentReader
from chips_tp.channel import channel_id
from chips_tp.family import channel_address
from chips_tp.state import CLOSED
from chips_tp.tournament import Tournament, match_fixed, match_games, name_problem
from client_core.errors import CommandError
from xo_core.text import printable, quoted
from xo_web.chips_desk import ChipsDesk, parse_player
from xo_web.chips_matches import Matches
from xo_web.errors import bad_request
from xo_web.sender import refused, unavailable

Json = dict[str, Any]
#: The longest a match the page plays for a tournament is waited for past its round's end (seconds).
MATCH_GRACE_SECONDS: Final = 5.0


class Stopping(Exception):
    """The server is stopping: the player's part in the tournament ends where it stands."""


def parse_tournament(body: object) -> tuple[str, str]:
    """``{"player", "tournament"}``: the key's name and the tournament's name, or a 400 saying why."""
    player = parse_player(body)
    assert isinstance(body, dict)
    name = body.get("tournament")
    if not isinstance(name, str) or name_problem(name):
        raise bad_request('"tournament" must be a tournament\'s name: 1 to 64 printable characters')
    return player, name


class Tournaments:
    """The tournaments the page shows, and the players the server takes part for."""

    def __init__(self, desk: ChipsDesk, matches: Matches) -> None:
        self.desk, self.matches = desk, matches
        self.stop = threading.Event()
        self.taking_part: dict[tuple[str, str], threading.Thread] = {}
        """The threads taking part, by (public key, tournament)."""
        self.stopped: dict[tuple[str, str], str] = {}
        """Why a player's part stopped short, by (public key, tournament), until Play starts it again."""
        self._lock = threading.Lock()

    def view(self) -> Json:
        """``{"tournaments": [...], "taking_part": [{"key", "tournament", "stopped"}]}``: every tournament, and whom
        the server takes part for (``stopped``: why a part ended short, else null). Names are exact, as in
        ``chips tournament show --json``: the page shows them as text, and matches them to the tournaments'."""
        try:
            with self.desk.client() as client:
                found = TournamentReader(client).tournaments()
        except CommandError as error:
            raise unavailable(error) from None
        names = self.desk.names()
        parts = [{"key": key, "tournament": name, "stopped": None}
                 for (key, name), thread in list(self.taking_part.items()) if thread.is_alive()]  # fmt: skip
        parts += [{"key": key, "tournament": name, "stopped": printable(why, escape_backslashes=False)}
                  for (key, name), why in list(self.stopped.items())]  # fmt: skip
        return {"tournaments": [tournament_json(t, names) for t in found], "taking_part": parts}

    def join(self, player: str, name: str) -> Json:
        """``chips tournament join``: the player's buy-in paid into the pool."""
        signer = self.desk.player_signer(player)
        found = self._found(name)
        self.desk.submit(signer, ttx.enter(signer, found.name, found.buy_in), f"the join of {self._label(name)}")
        return {"tournament": printable(name), "message": f"You joined {self._label(name)}: your buy-in of "
                f"{found.buy_in} chips is in its pool."}  # fmt: skip

    def play(self, player: str, name: str) -> Json:
        """``chips tournament play`` for the player, on a thread of its own (nothing new if it runs already)."""
        signer = self.desk.player_signer(player)
        found = self._found(name)
        if signer.public_key not in found.players:
            raise refused(f"you are not in {self._label(name)}: join it first")
        key = (signer.public_key, name)
        with self._lock:
            running = self.taking_part.get(key)
            if running is not None and running.is_alive():
                return {"tournament": printable(name), "message": f"Already taking part in {self._label(name)}."}
            thread = threading.Thread(target=self._take_part, args=(player, signer, name), daemon=True,
                                      name=f"xo web: tournament {name[:16]}")  # fmt: skip
            self.taking_part[key] = thread
            self.stopped.pop(key, None)
        thread.start()
        return {"tournament": printable(name), "message": f"Taking part in {self._label(name)}: your match of each "
                "round opens on its channel's page."}  # fmt: skip

    def close(self) -> None:
        """Stop taking part (each loop ends within a poll) and wait for the threads, a bounded time."""
        self.stop.set()
        for thread in list(self.taking_part.values()):
            thread.join(5.0)

    def _take_part(self, player: str, signer: Any, name: str) -> None:
        def sleep(seconds: float) -> None:
            if self.stop.wait(seconds):
                raise Stopping

        def play_match(current: Tournament, board: int) -> bool:
            fixed = match_fixed(current, current.round, board)
            ident = channel_id(fixed)
            with self.desk.client() as client:
                record = RestChain(client, None).channel(channel_address(ident))
            if record is None or record.status == CLOSED:
                return record is not None
            terms = ChannelTerms(
                f"{current.name} round {current.round} board {board}",
                fixed,
                match_games(current.game, current.first_to),
            )
            self.matches.start(player, signer, record, terms)
            running = self.matches.running.get((signer.public_key, ident))
            if running is not None and running.thread is not None:
                running.thread.join(max((current.round_ends or 0) - time.time(), 0) + MATCH_GRACE_SECONDS)
            with self.desk.client() as client:
                record = RestChain(client, None).channel(channel_address(ident))
            return record is not None and record.status == CLOSED

        try:
            with self.desk.client() as client:
                chain = RestChain(client, signer, self.desk.wait_seconds)
                TournamentPlay(name=name, signer=signer, reader=TournamentReader(client), submit=chain.submit,
                               play_match=play_match, say=lambda _line: None, sleep=sleep).run()  # fmt: skip
        except Stopping:
            return
        except Exception as error:  # a failure ends this player's part, never the server: said, and Play starts again
            self.stopped[(signer.public_key, name)] = (
                getattr(error, "message", None) or str(error) or type(error).__name__
            )
        finally:
            with self._lock:
                self.taking_part.pop((signer.public_key, name), None)

    def _found(self, name: str) -> Tournament:
        try:
            with self.desk.client() as client:
                found = TournamentReader(client).tournament(name)
        except CommandError as error:
            raise unavailable(error) from None
        if found is None:
            raise refused(f"there is no {self._label(name)}")
        return found

    @staticmethod
    def _label(name: str) -> str:
        return f"tournament {quoted(name, None)}"
