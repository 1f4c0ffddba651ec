"""The server's one follower of the chain: it keeps the lobby up to date and tells every page, once per block.

However many pages are open, the REST API sees one ``/subscriptions`` websocket
(:class:`client_core.follow.AsyncFollower` under the XO and rps namespaces, ``5b7349``
and ``c56a0e``) and one read of state per start. The games are read as of the block
the follower starts after, and every later block's changes come from the follower,
so nothing falls between the two. Each block becomes one encoded event, published
to every page (:mod:`xo_web.fanout`); listeners (the computer, the reveals of the
throws made from the page) get the changes too.

Failures: the follower retries what may pass by itself and says so; its notices
become ``status`` events, so a page can show that the server lost the REST API
and when it is back. A chain that was replaced (``ChainChanged``: a devnet started
afresh) or a failure that does not pass by itself (credentials refused) ends the
follower; the server then starts again from a fresh read of the games after a
pause, and every page gets the new snapshot.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Final

from client_core.blocks import BlockRef, ChainChanged
from client_core.errors import Unavailable
from client_core.follow import AsyncFollower
from client_core.keys import KeyNames
from client_core.rest import RestClient
from client_core.runner import notice, warn
from rps_client.changes import Change as RpsChange
from rps_tp.family import NAMESPACE as RPS_NAMESPACE
from xo_client.changes import Change
from xo_tp.family import NAMESPACE
from xo_web import views
from xo_web.events import encode
from xo_web.fanout import Fanout
from xo_web.lobby import RpsLobby, XoLobby

RESTART_SECONDS: Final = 1.0
"""Pause before starting again after the chain was replaced."""
RETRY_SECONDS: Final = 5.0
"""Pause before starting again after a failure the follower does not retry (credentials refused, ...)."""
RECONNECTING: Final = "; reconnecting"
"""How the follower's notice of a lost connection ends (client_core.follow); every other notice means it is live."""

Listener = Callable[[list[Change]], None]
RpsListener = Callable[[list[RpsChange]], None]


class Live:
    """Follows the REST API at ``rest_url`` for ``lobby``, publishing to ``fanout``; :meth:`run` until cancelled.

    ``extra()`` adds to every snapshot what other parts of the server keep (the games the computer plays).
    """

    def __init__(
        self,
        rest_url: str,
        auth: tuple[str, str] | None,
        lobby: XoLobby,
        rps: RpsLobby,
        fanout: Fanout,
        *,
        names: Callable[[], KeyNames],
        extra: Callable[[], dict[str, Any]] = dict,
        trace: Callable[[str], None] | None = None,
    ) -> None:
        self.rest_url = rest_url
        self.extra = extra
        self.auth = auth
        self.lobby = lobby
        self.rps = rps
        self.fanout = fanout
        self.names = names
        self.trace = trace
        self.listeners: list[Listener] = []
        self.rps_listeners: list[RpsListener] = []
        self.status: dict[str, Any] = {"live": False, "message": "reading the games"}

    def snapshot_event(self) -> bytes:
        """What a page starts from: every game as of the lobby's block, and whether the server is live."""
        names = self.names()
        snapshot = views.snapshot_view(self.lobby.block, self.lobby.games(), names)
        rps_games = [views.rps_game_view(game, names) for game in self.rps.games()]
        document = {**snapshot, "rps_games": rps_games, "status": self.status, **self.extra()}
        return encode("snapshot", document, self._event_id(self.lobby.block))

    async def run(self) -> None:
        """Follow the chain for as long as the server runs."""
        while True:
            try:
                await self.follow()
            except ChainChanged as changed:
                self.say(f"{changed.message}; reading the games afresh", live=False)
                await asyncio.sleep(RESTART_SECONDS)
            except Unavailable as error:
                self.say(f"{error.message}; trying again in {RETRY_SECONDS:g} s", live=False)
                await asyncio.sleep(RETRY_SECONDS)

    async def follow(self) -> None:
        """One follower, from a fresh read of the games to its end."""
        async with AsyncFollower(
            self.rest_url, [NAMESPACE, RPS_NAMESPACE], auth=self.auth, trace=self.trace,
            on_notice=self.follower_said,
        ) as follower:  # fmt: skip
            start = await follower.start()
            xo_entries, rps_entries = await asyncio.gather(
                asyncio.to_thread(read_games, self.rest_url, self.auth, start, NAMESPACE, self.trace),
                asyncio.to_thread(read_games, self.rest_url, self.auth, start, RPS_NAMESPACE, self.trace),
            )
            for problem in self.lobby.reset(start, xo_entries) + self.rps.reset(start, rps_entries):
                warn("xo", problem)
            self.status = {"live": True, "message": None}
            self.fanout.publish(self.snapshot_event())
            async for block in follower:
                ours = [change for change in block.changes if change.address.startswith(NAMESPACE)]
                changes, problems = self.lobby.apply(block._replace(changes=tuple(ours)))
                theirs = [change for change in block.changes if change.address.startswith(RPS_NAMESPACE)]
                rps_changes, rps_problems = self.rps.apply(block._replace(changes=tuple(theirs)))
                for problem in problems + rps_problems:
                    warn("xo", problem)
                names = self.names()
                event = {
                    **views.block_changes_view(block.ref, changes, names),
                    "rps_changes": [views.rps_change_view(change, names) for change in rps_changes],
                }
                self.fanout.publish(encode("block", event, self._event_id(block.ref)))
                for listener in self.listeners:
                    listener(changes)
                for rps_listener in self.rps_listeners:
                    rps_listener(rps_changes)

    def follower_said(self, message: str) -> None:
        self.say(message, live=not message.endswith(RECONNECTING))

    def say(self, message: str, *, live: bool) -> None:
        """Tell the person running the server (stderr) and every open page (a ``status`` event).

        A page opened later starts from the standing condition (``self.status``, in its
        snapshot): why the server is offline, but not that it is back, which is news only to
        the pages that saw it go.
        """
        notice("xo", message)
        self.status = {"live": live, "message": None if live else message}
        self.fanout.publish(encode("status", {"live": live, "message": message}))

    @staticmethod
    def _event_id(block: BlockRef | None) -> str | None:
        return None if block is None else str(block.block_num)


def read_games(
    rest_url: str,
    auth: tuple[str, str] | None,
    block: BlockRef,
    prefix: str,
    trace: Callable[[str], None] | None,
) -> list[tuple[str, bytes]]:
    """Every state entry under ``prefix`` as of ``block`` (blocking: run in a thread)."""
    with RestClient(rest_url, auth=auth, trace=trace) as client:
        return list(client.list_state(prefix, head=block.block_id))
