"""The games of one agent: what its admin routes and message handlers do to them, and what they send.

Each change runs under the game's lock (one at a time per thread), reads the game's record,
asks the state machine (:mod:`xo_aries.player`) and, if it agrees, stores the new state and
sends the message that goes with it. A refusal changes nothing: for the agent's own player it
is a :class:`~xo_aries.player.Refusal` the route turns into a 4xx (nothing is sent); for a
message from the other agent it is a ``problem-report`` back, kept in the game's ``problems``.
Every stored change is also a record event, hence a webhook.
"""

from __future__ import annotations

import asyncio
import logging
import random
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, Final

from acapy_agent.connections.models.conn_record import ConnRecord
from acapy_agent.core.profile import Profile
from acapy_agent.messaging.agent_message import AgentMessage
from acapy_agent.messaging.decorators.thread_decorator import ThreadDecorator
from acapy_agent.storage.error import StorageNotFoundError

from xo_aries import player as machine
from xo_aries.autoplay import auto_cell
from xo_aries.messages import Move, Outcome, problem_report, protocol_of
from xo_aries.player import Refusal
from xo_aries.problem_fields import reported_problem
from xo_aries.records import GameRecord
from xo_aries.referee import LedgerUnavailable, Referee
from xo_client.aries import BAD_MESSAGE, MOVE, OUTCOME, PROTOCOL
from xo_core.text import printable, quoted

LOGGER = logging.getLogger(__name__)
#: The plugin's settings, under ACA-Py's ``plugin_config`` (``-o xo_aries.auto_play=perfect``).
CONFIG_KEY: Final = "xo_aries"
#: Longest thread id accepted from another agent (RFC 0008 ids are at most 64 characters).
MAX_THREAD_ID: Final = 64
#: How many problems a game keeps (the newest), so a hostile peer cannot grow a record without end.
MAX_PROBLEMS: Final = 20
#: How much of another agent's explanation is kept.
MAX_EXPLANATION: Final = 200

Send = Callable[..., Awaitable[Any]]
"""ACA-Py's outbound router: ``await send(message, connection_id=...)``."""

#: One lock per game in play; a lock nobody holds or waits for goes away, so hostile thread ids leave nothing behind.
_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()


class GameNotFound(LookupError):
    """No game with that thread id on this agent."""


class ConnectionNotReady(ValueError):
    """The connection does not exist or is not ready to carry messages."""


def _lock(thread_id: str) -> asyncio.Lock:
    lock = _locks.get(thread_id)
    if lock is None:
        lock = _locks[thread_id] = asyncio.Lock()
    return lock


def plugin_settings(profile: Profile) -> dict[str, Any]:
    """The plugin's own settings from ACA-Py's plugin configuration."""
    config = profile.settings.get("plugin_config") or {}
    settings = config.get(CONFIG_KEY) if isinstance(config, dict) else None
    return settings if isinstance(settings, dict) else {}


class GameManager:
    """The games of the agent whose ``profile`` it is; ``send`` delivers messages over a connection."""

    def __init__(self, profile: Profile, send: Send) -> None:
        """A manager for one request or one received message."""
        self.profile = profile
        self.send = send
        settings = plugin_settings(profile)
        self.auto_play = settings.get("auto_play")
        self.referee = Referee.from_settings(settings)

    async def start(self, connection_id: str, me: object, cell: object = None) -> GameRecord:
        """``POST /tictactoe/start``: a new game with ``connection_id``; X opens with ``cell``, O invites X."""
        await self._ready_connection(connection_id)
        player = machine.opened(me, cell)
        message = Move(_type=f"{PROTOCOL}/{MOVE}", me=player.me, moves=player.notation())
        record = GameRecord(
            thread_id=message._id, connection_id=connection_id, protocol=PROTOCOL, me=player.me, new_with_id=True
        )
        async with _lock(record.thread_id):
            if player.moves:
                record.ledger = await self.referee.own_move(record.thread_id, player)
            record.update(player)
            record.sent = 1
            await self._save(record, "game started")
            await self.send(message, connection_id=connection_id)
        return record

    async def move(self, thread_id: str, cell: object) -> GameRecord:
        """``POST /tictactoe/{thread_id}/move``: my move on ``cell``, refused (and not sent) if illegal."""
        async with _lock(thread_id):
            record = await self.game(thread_id)
            await self._ready_connection(record.connection_id)
            player = machine.own_move(record.player, cell)
            record.ledger = await self.referee.own_move(thread_id, player) or record.ledger
            await self._send_move(record, player)
        return record

    async def abandon(self, thread_id: str) -> GameRecord:
        """``POST /tictactoe/{thread_id}/abandon``: end the game with an ``outcome`` (winner null if unfinished)."""
        async with _lock(thread_id):
            record = await self.game(thread_id)
            player = machine.own_outcome(record.player)
            await self._send_outcome(record, player)
        return record

    async def game(self, thread_id: str) -> GameRecord:
        """The game ``thread_id``; :class:`GameNotFound` if this agent has none."""
        try:
            async with self.profile.session() as session:
                return await GameRecord.retrieve_by_id(session, thread_id)
        except StorageNotFoundError:
            raise GameNotFound(f"no game with thread id {printable(thread_id)[:MAX_THREAD_ID]!r}") from None

    async def games(self, connection_id: str | None = None, state: str | None = None) -> list[GameRecord]:
        """Every game, or those with one connection or in one state, oldest first."""
        tags = {key: value for key, value in (("connection_id", connection_id), ("state", state)) if value}
        async with self.profile.session() as session:
            records = await GameRecord.query(session, tags)
        return sorted(records, key=lambda record: record.created_at or "")

    async def received_move(self, message: Move, connection_id: str) -> None:
        """The other agent's ``move``: a new game if its thread is new, else the next move of one."""
        thread_id = message._thread_id
        if not isinstance(thread_id, str) or not 0 < len(thread_id) <= MAX_THREAD_ID:
            await self._refuse(message, connection_id, None, Refusal(BAD_MESSAGE, "the thread id is too long"))
            return
        async with _lock(thread_id):
            try:
                record = await self.game(thread_id)
            except GameNotFound:
                await self._invited(message, connection_id)
            else:
                if record.connection_id != connection_id:
                    refusal = Refusal(BAD_MESSAGE, "this thread is a game with another connection")
                    await self._refuse(message, connection_id, None, refusal)
                    return
                try:
                    player = machine.received_move(record.player, message.me, message.moves)
                    ledger = await self.referee.their_move(thread_id, player)
                except Refusal as refusal:
                    await self._refuse(message, connection_id, record, refusal)
                    return
                record.update(player)
                record.ledger = ledger or record.ledger
                await self._save(record, "move received")
                await self._after_their_move(record)
        await self._auto_move(thread_id)

    async def received_outcome(self, message: Outcome, connection_id: str) -> None:
        """The other agent's ``outcome``: the game ends, abandoned (null winner) or acknowledged."""
        thread_id = message._thread_id
        async with _lock(thread_id):
            try:
                record = await self.game(thread_id)
            except GameNotFound as missing:
                await self._refuse(message, connection_id, None, Refusal(BAD_MESSAGE, str(missing)))
                return
            if record.connection_id != connection_id:
                await self._refuse(message, connection_id, None, Refusal(BAD_MESSAGE, "not a game of this connection"))
                return
            try:
                player = machine.received_outcome(record.player, message.winner)
            except Refusal as refusal:
                await self._refuse(message, connection_id, record, refusal)
                return
            record.update(player)
            await self._save(record, "outcome received")

    async def received_problem(self, report: dict[str, Any]) -> None:
        """A ``problem-report`` about one of our games, in the seed's form or RFC 0035's: kept in its ``problems``.

        The state stays as it is: a report says the other agent refused something, not what to do.
        """
        thread = report.get("~thread") if isinstance(report.get("~thread"), dict) else {}
        thread_id = thread.get("thid")
        if not isinstance(thread_id, str) or not 0 < len(thread_id) <= MAX_THREAD_ID:
            return
        problem = reported_problem(report)
        async with _lock(thread_id):
            try:
                record = await self.game(thread_id)
            except GameNotFound:
                return
            self._note_problem(record, "received", problem.code, problem.explanation)
            await self._save(record, "problem-report received")

    async def _invited(self, message: Move, connection_id: str) -> None:
        """A first ``move`` from the other agent: my side of the new game, or a problem-report."""
        ledger: dict[str, Any] = {}
        try:
            self.referee.check_name(message._thread_id)
            player = machine.invited(message.me, message.moves)
            if player.moves:
                ledger = await self.referee.their_move(message._thread_id, player)
        except Refusal as refusal:
            await self._refuse(message, connection_id, None, refusal)
            return
        record = GameRecord(
            thread_id=message._thread_id,
            connection_id=connection_id,
            protocol=protocol_of(message),
            me=player.me,
            ledger=ledger,
            new_with_id=True,
        )
        record.update(player)
        await self._save(record, "game received")
        await self._after_their_move(record)

    async def _after_their_move(self, record: GameRecord) -> None:
        """A move that ended the game puts me in ``wrap-up``: acknowledge it with an ``outcome`` at once."""
        if record.state == machine.WRAP_UP:
            await self._send_outcome(record, machine.own_outcome(record.player))

    async def _auto_move(self, thread_id: str) -> None:
        """With ``--auto-play``, my move as soon as it is due."""
        if not self.auto_play:
            return
        async with _lock(thread_id):
            record = await self.game(thread_id)
            if record.state != machine.MY_MOVE:
                return
            cell = auto_cell(record.player, self.auto_play, random.Random())
            try:
                player = machine.own_move(record.player, cell)
                record.ledger = await self.referee.own_move(thread_id, player) or record.ledger
            except (Refusal, LedgerUnavailable) as failed:
                LOGGER.warning(
                    "auto-play could not move in %s: %s",
                    quoted(thread_id),
                    printable(str(failed), escape_backslashes=False),
                )
                return
            await self._send_move(record, player)

    async def _send_move(self, record: GameRecord, player: machine.Player) -> None:
        message = Move(_type=f"{record.protocol}/{MOVE}", me=player.me, moves=player.notation())
        self._thread(message, record)
        record.update(player)
        await self._save(record, "move sent")
        await self.send(message, connection_id=record.connection_id)

    async def _send_outcome(self, record: GameRecord, player: machine.Player) -> None:
        message = Outcome(
            _type=f"{record.protocol}/{OUTCOME}",
            winner=machine.outcome_winner(player),
            me=player.me,
            moves=player.notation(),
        )
        self._thread(message, record)
        record.update(player)
        await self._save(record, "outcome sent")
        await self.send(message, connection_id=record.connection_id)

    @staticmethod
    def _thread(message: AgentMessage, record: GameRecord) -> None:
        """Thread the message into the game: ``thid`` and my ``sender_order`` (RFC 0008), counted in the record."""
        message._thread = ThreadDecorator(thid=record.thread_id, sender_order=record.sent)
        record.sent += 1

    async def _refuse(
        self, message: AgentMessage, connection_id: str, record: GameRecord | None, refusal: Refusal
    ) -> None:
        """Answer the other agent's message with a ``problem-report`` in its thread; the game stays as it was.

        The report is in the spelling of the game (or of the refused message, for no game of ours).
        """
        LOGGER.info(
            "tictactoe: refusing %s in %s: %s",
            quoted(message._type),
            quoted(message._thread_id),
            printable(refusal.explanation, escape_backslashes=False),
        )
        protocol = record.protocol if record is not None else protocol_of(message)
        report = problem_report(protocol, refusal.code, refusal.explanation)
        report._thread = ThreadDecorator(thid=message._thread_id)
        if record is not None:
            self._note_problem(record, "sent", refusal.code, refusal.explanation)
            await self._save(record, "problem-report sent")
        await self.send(report, connection_id=connection_id)

    @staticmethod
    def _note_problem(record: GameRecord, direction: str, code: object, explanation: object) -> None:
        problem = {
            "direction": direction,
            "code": printable(str(code))[:MAX_THREAD_ID] if code is not None else None,
            "explanation": printable(str(explanation))[:MAX_EXPLANATION] if explanation is not None else None,
            "moves": list(record.moves),
        }
        record.problems = [*record.problems, problem][-MAX_PROBLEMS:]

    async def _save(self, record: GameRecord, reason: str) -> None:
        async with self.profile.session() as session:
            await record.save(session, reason=reason, event=True)

    async def _ready_connection(self, connection_id: object) -> None:
        if not isinstance(connection_id, str) or not connection_id:
            raise ConnectionNotReady("connection_id is required")
        try:
            async with self.profile.session() as session:
                connection = await ConnRecord.retrieve_by_id(session, connection_id)
        except StorageNotFoundError:
            raise ConnectionNotReady(f"no connection {printable(connection_id)[:MAX_THREAD_ID]!r}") from None
        if not connection.is_ready:
            raise ConnectionNotReady(f"connection {connection_id} is not ready (state {connection.state})")
