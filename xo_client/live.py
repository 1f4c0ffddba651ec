"""Games followed live for commands that wait on more than the chain: ``xo play`` (a person) and ``xo bot`` (timers).

:class:`LiveGames` reads the games as of the chain's newest block, then runs a
:class:`~client_core.follow_thread.FollowerThread` from that block on, so nothing
falls between the read and the first block followed. Everything the follower has
to say arrives on the command's own event queue -- a :class:`BlockEvent` per block,
a :class:`Notice` per line for a person (reconnecting, polling), a :class:`Failure`
when following ended -- beside the command's own events (a line typed). The
command's thread takes one event at a time and applies blocks with :meth:`LiveGames.apply`,
so the games it decides on change only between two of its steps.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Sequence
from dataclasses import dataclass

from client_core.blocks import BlockChanges, BlockRef
from client_core.follow_thread import FollowerThread
from client_core.rest import RestClient
from client_core.runner import warn
from xo_client.changes import Change
from xo_client.game_book import GameBook
from xo_client.games import Game
from xo_tp.family import NAMESPACE, game_address

RESTART_PAUSE = 1.0
"""Seconds between a chain found replaced and the fresh start: never a tight loop against a ledger in flux."""


@dataclass(frozen=True)
class BlockEvent:
    """A committed block's changes at the followed addresses."""

    block: BlockChanges


@dataclass(frozen=True)
class Notice:
    """A line for a person about the connection (``the REST API ... reconnecting``)."""

    text: str


@dataclass(frozen=True)
class Failure:
    """Following ended with this error (``ChainChanged``: start again with :meth:`LiveGames.restart`)."""

    error: BaseException


class LiveGames:
    """The games called ``names`` (None: every XO game), as of a block, kept current by a follower thread."""

    def __init__(self, client: RestClient, events: queue.Queue[object], names: Sequence[str] | None) -> None:
        self.client = client
        self.events = events
        self.names = None if names is None else tuple(names)
        self.addresses = None if names is None else sorted({game_address(name) for name in names})
        self.book = GameBook(lambda problem: warn("xo", problem))
        self._thread: FollowerThread | None = None

    def start(self) -> BlockRef:
        """Read the games as of the newest block and follow every block after it; that block is returned."""
        head = self.client.head_block().ref
        if self.addresses is None:
            self.book.load(self.client.list_state(NAMESPACE, head=head.block_id))
        else:
            entries = ((address, self.client.get_state(address, head=head.block_id)) for address in self.addresses)
            self.book.load((address, data) for address, data in entries if data is not None)
        self._thread = FollowerThread(
            self.client.base_url,
            self.addresses or [NAMESPACE],
            after=head,
            deliver=self._deliver,
            auth=self.client.auth,
            trace=self.client.trace,
            on_notice=lambda text: self.events.put(Notice(text)),
        ).start()
        return head

    def restart(self) -> BlockRef:
        """After the chain was replaced: stop, pause, and start again from a fresh read."""
        self.stop()
        time.sleep(RESTART_PAUSE)
        return self.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._thread.stop()
            self._thread = None

    def __enter__(self) -> LiveGames:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def apply(self, block: BlockChanges) -> list[Change]:
        """Move the games on by ``block``; what happened, to the followed names only."""
        changes = self.book.apply(block)
        if self.names is None:
            return changes
        return [change for change in changes if change.name in self.names]

    def game(self, name: str) -> Game | None:
        return self.book.game(name, game_address(name))

    def games(self) -> list[Game]:
        """Every followed game there is now, by name."""
        games = self.book.games()
        return games if self.names is None else [game for game in games if game.name in self.names]

    def _deliver(self, item: BlockChanges | BaseException) -> None:
        self.events.put(Failure(item) if isinstance(item, BaseException) else BlockEvent(item))
