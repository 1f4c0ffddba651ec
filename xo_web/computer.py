"""The computer as the page's opponent: ``xo bot``'s seat core answering in the games a page asked it to play.

A page asks for the computer in a game (``POST /api/computer``); from then on the
server's follower tells it of every change to that game, and the computer moves
when :func:`xo_client.seat.turn_of` says it is its move. The move itself is
:meth:`xo_client.seat.SeatPlayer.play`: a fresh read of the game, the choice
(:mod:`xo_client.ai`, at the level the page chose), the processor's own checks, a
signed transaction with the computer's own key (``xo-ai`` in the key directory,
made on first use), and its commit. So a game against the computer is a game
between two keys on the ledger, like any other. No loop of its own: one move at
a time per game, started by the follower's blocks.

The computer answers (``opens=False``): in a game nobody has joined, the person
moves first, as X. It leaves a game once it is over, deleted, or seated with two
other keys, when its move cannot be made (the REST API down, a move left
pending: the message says so), or when the page asks (``POST /api/computer/stop``).
Every page is told with a ``computer`` event: ``{"name", "shown", "level",
"active", "message"}``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from client_core.errors import CommandError
from client_core.keys import KeyNames
from client_core.rest import RestClient
from xo_client.ai import Level
from xo_client.changes import Change
from xo_client.seat import Action, SeatPlayer, ai_signer
from xo_core.signing import Signer
from xo_core.text import game_label, printable
from xo_web.errors import REFUSED, ApiError, bad_request
from xo_web.lobby import XoLobby

LEAVES: Final = frozenset((Action.OVER, Action.GONE, Action.NO_SEAT))
"""What ends the computer's part in a game."""
MAX_REFUSALS: Final = 3
"""Moves the validator refuses in a row (each retried from a fresh read) before the computer gives a game up."""

Json = dict[str, Any]


class Computer:
    """The games the computer plays for the pages, against the REST API at ``rest_url``."""

    def __init__(
        self,
        rest_url: str,
        auth: tuple[str, str] | None,
        key_dir: Path,
        lobby: XoLobby,
        names: Callable[[], KeyNames],
        *,
        publish: Callable[[str, Json], None],
        key_made: Callable[[], None] = lambda: None,
        trace: Callable[[str], None] | None = None,
    ) -> None:
        self.rest_url = rest_url
        self.auth = auth
        self.key_dir = key_dir
        self.lobby = lobby
        self.names = names
        self.publish = publish
        self.key_made = key_made
        self.trace = trace
        self.levels: dict[str, Level] = {}
        """The games the computer plays, by name, and at which level."""
        self._signer: Signer | None = None
        self._players: dict[str, SeatPlayer] = {}
        self._moving: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()

    def view(self) -> list[Json]:
        """The games the computer plays, for a page's snapshot."""
        return [{"name": name, "level": str(level)} for name, level in sorted(self.levels.items())]

    async def start(self, name: str, level_text: object) -> Json:
        """Play in ``name`` at ``level_text``: refused (409) if the computer cannot play there; moves at once if due.

        Each game has its own seat player, and so its own REST client: moves in
        several games go on side by side, each in a worker thread.
        """
        if not isinstance(name, str) or not isinstance(level_text, str) or level_text not in set(Level):
            levels = " or ".join(f'"{level}"' for level in Level)
            raise bad_request(f'the computer needs {{"name": GAME, "level": {levels}}}')
        level = Level(level_text)
        if self._signer is None:
            made = await asyncio.to_thread(ai_signer, self.key_dir)  # made on first use
            self._signer = made.signer
            if made.created:
                self.key_made()  # so that pages name it xo-ai
        player = self._players.get(name) or SeatPlayer(
            RestClient(self.rest_url, auth=self.auth, trace=self.trace), self._signer, opens=False, names=self.names()
        )
        turn = player.turn(self.lobby.game(name))
        if turn.action in LEAVES:
            self._release(name, player)
            raise ApiError(409, REFUSED, "Computer Refused", f"the computer cannot play in {game_label(name)}: "
                           f"{turn.reason}")  # fmt: skip
        player.level = level  # read under the player's lock, at its next move
        self._players[name] = player
        self.levels[name] = level
        self._tell(name, active=True, message=None)
        self.nudge(name)
        return {"name": name, "level": str(level), "key": player.key, "reason": turn.reason}

    def stop(self, name: object) -> None:
        if not isinstance(name, str):
            raise bad_request("name the game: {\"name\": GAME}")
        if name in self.levels:
            self._leave(name, "The computer stopped playing here, as asked.")

    def on_changes(self, changes: list[Change]) -> None:
        """The follower's listener: every game the computer plays that a block changed may be its move now."""
        for name in {change.name for change in changes} & self.levels.keys():
            self.nudge(name)

    def nudge(self, name: str) -> None:
        """Consider a move in ``name``: now, or right after the move under way there."""
        if name in self._moving:
            self._again.add(name)
        else:
            self._moving[name] = asyncio.create_task(self._consider(name), name=f"xo web: the computer in {name!r}")

    async def close(self) -> None:
        """Stop considering moves (the server is stopping); a move already sent may still commit."""
        for task in list(self._moving.values()):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for player in self._players.values():
            player.client.close()
        self._players.clear()

    async def _consider(self, name: str) -> None:
        refusals = 0
        try:
            while name in self.levels:
                self._again.discard(name)
                try:
                    outcome = await self._players[name].aplay(name)
                except CommandError as error:
                    if name in self.levels:  # not stopped meanwhile
                        self._leave(name, f"The computer stopped playing: {error.message}")
                    return
                if outcome.turn.action in LEAVES:
                    self._leave(name, f"The computer left the game: {outcome.turn.reason}")
                    return
                if outcome.refusal is not None:
                    refusals += 1
                    if refusals >= MAX_REFUSALS:
                        self._leave(name, f"The computer gave up after {refusals} refused moves: {outcome.refusal}")
                        return
                    continue  # the game changed under it: decide again from a fresh read
                if name not in self._again:
                    return
        finally:
            self._moving.pop(name, None)
            if name not in self.levels and (player := self._players.get(name)) is not None:
                self._release(name, player)

    def _leave(self, name: str, message: str) -> None:
        """The computer plays ``name`` no more; its client is closed once no move of its is under way."""
        self.levels.pop(name, None)
        self._again.discard(name)
        player = self._players.get(name)
        if player is not None and name not in self._moving:
            self._release(name, player)
        self._tell(name, active=False, message=message)

    def _release(self, name: str, player: SeatPlayer) -> None:
        if self._players.get(name) is player:
            del self._players[name]
        player.client.close()

    def _tell(self, name: str, *, active: bool, message: str | None) -> None:
        level = self.levels.get(name)
        self.publish("computer", {
            "name": name, "shown": printable(name), "level": str(level) if level else None, "active": active,
            "message": printable(message, escape_backslashes=False) if message else None,
        })  # fmt: skip

