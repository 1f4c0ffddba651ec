"""Staked matches played from the page: the server runs ``chips play``'s match for the page's player.

Each match the page starts (``POST /api/chips/play``) is :class:`chips_client.match.Match`,
exactly as ``chips play`` runs it: the player's store, the REST API, and a persistent
session on the MQTT broker (:class:`client_core.broker.BrokerSession`), in a thread of
its own. The person's moves come from the page: when the match asks for one
(:class:`PageChooser`), every page is told (a ``chips`` event), and ``POST /api/chips/move``
hands the page's space or throw over; the match never waits on it, so a challenge is
answered meanwhile, and when one waits on the person's move the page counts its deadline
down and the computer plays the move at half the time left. Whatever the match says,
and every state it signs or accepts, goes to the pages as a ``chips`` event at once: the
opponent's move shows at broker speed, not block speed.

A match ends when its channel closes (concluded or finalized), when it cannot go on
(the message says why), or when the server stops: the chain and the chooser it is given
raise :class:`Stopped` then, within a poll.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from chips_client.asking import Question
from chips_client.chain import RestChain
from chips_client.computer import Computer
from chips_client.match import Match
from chips_client.messages import client_id
from chips_client.store import ChannelTerms, Store
from chips_tp.channel import RPS
from chips_tp.state import CLOSED, FUNDING
from chips_tp.state import Channel as Record
from client_core.broker import BrokerAddress, BrokerSession
from client_core.keys import NO_NAMES, KeyNames
from client_core.rest import RestClient
from rps_tp.game import THROWS
from xo_core.signing import Signer
from xo_core.text import printable
from xo_web.chips_desk import state_view
from xo_web.errors import ApiError, bad_request
from xo_web.sender import refused

Json = dict[str, Any]
MAX_MATCHES: Final = 16
"""Matches the server plays at once (each holds a thread and a broker session)."""
JOIN_SECONDS: Final = 5.0


class Stopped(Exception):
    """The server is stopping: the match ends where it stands (its store holds every state)."""


class PageChooser:
    """The person's moves, from the page: the match asks (every page is told what it wants), goes on with its loop,
    and takes the move once ``POST /api/chips/move`` has brought one; a question withdrawn is said with its reason.

    A question with a deadline (a challenge waits on the move) carries it, and when the computer plays for the
    player, so the page counts it down.
    """

    def __init__(self, stop: threading.Event, tell: Callable[[str | None], None]) -> None:
        self.stop = stop
        self.tell = tell
        self.wanted: Json | None = None
        self.moves: queue.Queue[object] = queue.Queue(maxsize=1)

    def ask(self, question: Question) -> None:
        """What the match wants now, for every page; a move left from an older question is not for this one."""
        while not self.moves.empty():
            self.moves.get_nowait()
        wanted: Json = {"kind": question.game, "turn": question.turn, "deadline": question.deadline,
                        "computer_at": question.computer_at}  # fmt: skip
        if question.game == "xo":
            wanted |= {"board": question.board, "mark": question.mark}
        self.wanted = wanted
        self.tell(None)

    def answer(self) -> int | str | None:
        """The move the page brought, if any; :class:`Stopped` once the server stops."""
        if self.stop.is_set():
            raise Stopped
        try:
            move = self.moves.get_nowait()
        except queue.Empty:
            return None
        self.wanted = None
        self.tell(None)
        assert isinstance(move, int | str)
        return move

    def withdraw(self, reason: str) -> None:
        """The question no longer counts: the pages are told why."""
        if self.wanted is not None:
            self.wanted = None
            self.tell(f"no longer asked: {reason}")

    def offer(self, move: object) -> None:
        """A move from the page, checked against what the match asks for; a 409 in words when it cannot be taken."""
        wanted = self.wanted
        if wanted is None:
            raise refused("it is not your move in this match: wait for your opponent")
        if wanted["kind"] == "xo":
            if not isinstance(move, int) or isinstance(move, bool) or not 1 <= move <= 9:
                raise bad_request('"space" must be 1-9')
            if wanted["board"][move - 1] != "-":
                raise refused(f"space {move} is taken: choose a free one")
        elif move not in THROWS:
            raise bad_request(f'"throw" must be one of {", ".join(THROWS)}')
        try:
            self.moves.put_nowait(move)
        except queue.Full:
            raise refused("a move is already on its way") from None


class StoppingChain:
    """The match's chain, which ends the match (:class:`Stopped`) once the server stops: it is read every poll."""

    def __init__(self, chain: RestChain, stop: threading.Event) -> None:
        self.chain, self.stop = chain, stop

    def channel(self, address: str) -> Record | None:
        """The channel at ``address``; :class:`Stopped` once the server stops, which ends the match."""
        if self.stop.is_set():
            raise Stopped
        return self.chain.channel(address)

    def submit(self, transaction: Any, what: str) -> None:
        """Submit ``transaction`` through the chain and wait for its commit."""
        self.chain.submit(transaction, what)


class Running:
    """One match the server plays: its thread, its chooser, and what the pages were last told of it."""

    def __init__(self, player: str, signer: Signer, terms: ChannelTerms, ident: bytes) -> None:
        self.player, self.signer, self.terms, self.ident = player, signer, terms, ident
        self.stop = threading.Event()
        self.chooser: PageChooser | None = None
        self.match: Match | None = None
        self.thread: threading.Thread | None = None


class Matches:
    """The matches the server plays for its pages, against ``rest_url`` and the broker at ``broker``."""

    def __init__(
        self, rest_url: str, auth: tuple[str, str] | None, broker: BrokerAddress, store_path: Callable[[str], Path], *,
        publish: Callable[[Json], None], trace: Callable[[str], None] | None = None,
        names: Callable[[], KeyNames] = lambda: NO_NAMES,
    ) -> None:  # fmt: skip
        self.rest_url, self.auth, self.broker, self.trace = rest_url, auth, broker, trace
        self.names = names
        """The key directory's names for keys, read afresh for each match: its lines name the players."""
        self.store_path = store_path
        self.publish = publish
        self.running: dict[tuple[str, bytes], Running] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop the pages are told on, from the match threads."""
        self._loop = loop

    def view(self) -> list[Json]:
        """The matches running, for a page's snapshot: each with what it waits for."""
        return [self._event(run, None) for run in list(self.running.values())]

    def start(self, player: str, signer: Signer, record: Record, terms: ChannelTerms) -> Json:
        """Play ``player``'s side of ``record``'s channel (nothing new if it plays already); a 409 when it cannot."""
        if record.status == FUNDING:
            raise refused("the channel is still waiting for a deposit: both must be in before the match starts")
        if record.status == CLOSED:
            raise refused("the channel is closed: its match is over")
        key = (signer.public_key, record.id)
        with self._lock:
            if key in self.running:
                return self._event(self.running[key], "already playing")
            if len(self.running) >= MAX_MATCHES:
                raise ApiError(429, 50, "Too Many Matches", f"{MAX_MATCHES} matches are being played already")
            run = Running(player, signer, terms, record.id)
            self.running[key] = run
        run.thread = threading.Thread(target=self._play, args=(run,), name=f"xo web: match {record.id.hex()[:8]}",
                                      daemon=True)  # fmt: skip
        run.thread.start()
        return self._event(run, "playing")

    def move(self, public_key: str, ident: bytes, move: object) -> None:
        """Hand the page's ``move`` to the match the server plays for ``public_key``; a 409 when none waits for it."""
        run = self.running.get((public_key, ident))
        if run is None or run.chooser is None:
            raise refused("the server is not playing this match for you: start it with Play")
        run.chooser.offer(move)

    def say(self, public_key: str, ident: bytes, game: str, line: str, offer: str | None = None) -> None:
        """Tell every page (from any thread) what no match says of ``public_key``'s channel ``ident``: an accept
        waiting for its join, cancelled, or joined (``offer``: the offer's id, so the offerer's page opens it)."""
        event = {
            "player": public_key, "channel": ident.hex(), "game": game, "playing": False,
            "line": printable(line, escape_backslashes=False), "state": None, "wanted": None, "rps": game == RPS,
            "offer": offer,
        }  # fmt: skip
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.publish, event)

    def _play(self, run: Running) -> None:
        """The match, on its own thread, from start to its end; the pages are told how it ended."""
        said = "the match ended"
        try:
            with Store(self.store_path(run.signer.public_key)) as store, RestClient(
                self.rest_url, auth=self.auth, trace=self.trace
            ) as client:  # fmt: skip
                chain = StoppingChain(RestChain(client, run.signer), run.stop)
                run.chooser = PageChooser(run.stop, lambda line: self._tell(run, line))
                address = self.broker
                cid = client_id(run.signer, run.ident)  # chips play's: one persistent session for both
                run.match = Match(
                    signer=run.signer, terms=run.terms, store=store, chain=chain,
                    connect=lambda on_message, on_reconnect: BrokerSession(
                        address, cid, on_message, on_reconnect=on_reconnect, say=lambda line: self._tell(run, line)
                    ),
                    chooser=run.chooser, say=lambda line: self._tell(run, line), names=self.names(),
                    stand_in=Computer("perfect"),
                )  # fmt: skip
                outcome = run.match.run()
                said = f"the channel is {outcome}" if outcome != "closed" else "the channel is closed already"
        except Stopped:
            said = "the server stopped; the match goes on when you play it again"
        except Exception as error:  # any failure ends this match, said to the page, never the server
            message = getattr(error, "message", None) or str(error) or type(error).__name__
            said = f"the match stopped: {message}"
        finally:
            with self._lock:
                self.running.pop((run.signer.public_key, run.ident), None)
            self._tell(run, said, ended=True)

    def _event(self, run: Running, line: str | None, ended: bool = False) -> Json:
        channel = None if run.match is None else run.match.channel
        me = run.terms.fixed.participants.index(run.signer.public_key)
        state = None
        if channel is not None:
            state = state_view(channel.latest.state, me, None if run.match is None else run.match.story)
        wanted = None if run.chooser is None else run.chooser.wanted
        return {
            "player": run.signer.public_key, "channel": run.ident.hex(), "game": run.terms.fixed.app,
            "playing": not ended, "line": None if line is None else printable(line, escape_backslashes=False),
            "state": state, "wanted": wanted, "rps": run.terms.fixed.app == RPS,
        }  # fmt: skip

    def _tell(self, run: Running, line: str | None, ended: bool = False) -> None:
        """Tell every page (from the match's thread): the event is made here, published on the server's loop."""
        event = self._event(run, line, ended)
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.publish, event)

    async def close(self) -> None:
        """Stop every match (each ends within a poll) and wait for them, a bounded time."""
        runs = list(self.running.values())
        for run in runs:
            run.stop.set()
        for run in runs:
            if run.thread is not None:
                await asyncio.to_thread(run.thread.join, JOIN_SECONDS)
