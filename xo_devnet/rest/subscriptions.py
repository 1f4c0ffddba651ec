"""GET /subscriptions: the Sawtooth REST API's state-delta websocket (1.0-1.2), message for message.

A client sends JSON text messages:

- ``{"action": "subscribe", "address_prefixes": [...]}``: it is then sent the current
  head block, then every block committed after it, one message per block, each
  ``{"block_id", "block_num", "previous_block_id", "state_changes"}`` with
  ``block_num`` as text and ``state_changes`` the block's changes under the prefixes
  (all of them without prefixes): ``{"address", "value", "type"}``, value in base64.
  A later subscribe replaces the earlier one.
- ``{"action": "unsubscribe"}``: no more blocks (the socket stays open).
- ``{"action": "get_block_deltas", "block_id": ..., "address_prefixes": [...]}``:
  that block's message.

Errors are ``{"error": text}`` messages, as Sawtooth sends them: ``Invalid input: "<the
message>"`` for anything that is not a JSON object, ``Unknown action "<action>"``,
``Must specify a block id``; and ours where Sawtooth's REST API fails instead (an
unknown block id, prefixes that are not a list of strings).

Our one addition: ``subscribe`` takes ``last_known_block_ids`` too, and then starts
after the newest of them on the chain instead of with the head, so a client that
reconnects misses no block and sees none twice (Sawtooth's REST API ignores the field;
there the client fills the gap with ``get_block_deltas``). An id unknown to the chain
is an error message and no subscription.

The websocket subscribes in-process to the ledger's ``EventHub``, the same fan-out the
ZMQ event clients use, so each socket has a bounded queue, a slow one continues from
storage and one that stops reading is closed (1008) after the hub's stall timeout. Open
websockets count against the ledger's subscriber limit: beyond it the upgrade is
refused with 429 / code 90 (a request that is no websocket handshake: 400 / code 91).
On shutdown every socket is closed with 1001 ``Server shutdown``, as Sawtooth's REST
API does.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from xo_devnet.events.blocks import BlockEvents
from xo_devnet.events.hub import EventHub, Subscriber, SubscriberGone, TooManySubscribers, UnknownBlock
from xo_devnet.rest.errors import ApiError
from xo_devnet.rest.keys import LEDGER, LOG_LIMITER, WEBSOCKETS

LOG = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 64 * 1024
"""Longest message a client may send (aiohttp closes the socket with 1009 beyond it)."""
MAX_ADDRESS_PREFIXES = 256
CLOSE_TIMEOUT_SECONDS = 1.0
"""How long closing waits for the client's answer before the connection is cut."""


class _BadRequest(Exception):
    """A message we answer with ``{"error": ...}``."""


class WebsocketSession:
    """One open websocket: its subscription, if any, and the answers to what its client sends."""

    def __init__(
        self, ws: web.WebSocketResponse, hub: EventHub, name: str, transport: asyncio.BaseTransport | None
    ) -> None:
        self.ws = ws
        self.name = name
        self._hub = hub
        self._transport = transport
        self._subscriber: Subscriber | None = None
        self._closing: asyncio.Task[None] | None = None
        self._gone = False

    async def serve(self) -> None:
        """Read the client's messages until it closes (or is closed)."""
        async for message in self.ws:
            if message.type == WSMsgType.TEXT:
                await self._answer(message.data)
            elif message.type == WSMsgType.BINARY:
                await self._send({"error": "Invalid input: binary messages are not accepted; send JSON text"})
            elif message.type == WSMsgType.ERROR:
                self._log("ws-error", logging.INFO, "websocket %s closed: %s", self.ws.exception())

    def _log(self, key: str, level: int, message: str, *args: object) -> None:
        """A line this client caused: once per interval, with a count of the rest (the hub's limiter)."""
        self._hub.log_limiter.log(LOG, key, level, message, self.name, *args)

    async def _answer(self, text: str) -> None:
        try:
            message = json.loads(text)
        except (ValueError, RecursionError):
            message = None
        if not isinstance(message, dict):
            await self._send({"error": f'Invalid input: "{text}"'})
            return
        action = message.get("action", "")
        try:
            if action == "subscribe":
                await self._subscribe(message)
            elif action == "unsubscribe":
                await self.unsubscribe()
            elif action == "get_block_deltas":
                await self._get_block_deltas(message)
            else:
                await self._send({"error": f'Unknown action "{action}"'})
        except _BadRequest as error:
            await self._send({"error": str(error)})

    async def _subscribe(self, message: dict[str, Any]) -> None:
        prefixes = _address_prefixes(message)
        last_known = message.get("last_known_block_ids")
        if last_known:
            if not isinstance(last_known, list) or not all(isinstance(item, str) for item in last_known):
                raise _BadRequest("last_known_block_ids must be a list of block ids")
            try:
                next_num = self._hub.first_block_after(last_known)
            except UnknownBlock as error:
                raise _BadRequest(f"Unknown block: {error}") from None
        else:
            next_num = self._hub.head_num
        await self.unsubscribe()
        self._subscriber = self._hub.subscribe(
            f"ws:{self.name}", next_num, functools.partial(self._deliver, prefixes), self._ended
        )

    async def unsubscribe(self) -> None:
        subscriber, self._subscriber = self._subscriber, None
        if subscriber is not None:
            await subscriber.stop()

    async def _get_block_deltas(self, message: dict[str, Any]) -> None:
        if "block_id" not in message:
            raise _BadRequest("Must specify a block id")
        prefixes = _address_prefixes(message)
        block_id = message["block_id"]
        block = self._hub.block_events_by_id(block_id) if isinstance(block_id, str) else None
        if block is None:
            raise _BadRequest(f"Unknown block id: {json.dumps(block_id)}")
        await self._send_text(block.delta_message(prefixes))

    async def _deliver(self, prefixes: tuple[str, ...], block: BlockEvents) -> None:
        try:
            await self.ws.send_str(block.delta_message(prefixes))
        except ConnectionError:
            self._gone = True
            raise SubscriberGone("the websocket is closed") from None

    def _ended(self, reason: str | None) -> None:
        """The subscriber was dropped (it stopped reading): close the socket, without waiting on the client."""
        self._subscriber = None
        if reason is not None and not self._gone and not self.ws.closed and self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self.close(WSCloseCode.POLICY_VIOLATION, reason))

    async def _send(self, document: dict[str, str]) -> None:
        await self._send_text(json.dumps(document))

    async def _send_text(self, text: str) -> None:
        """An answer to the client; one that is not taken within the stall timeout ends the connection."""
        try:
            async with asyncio.timeout(self._hub.stall_timeout):
                await self.ws.send_str(text)
        except ConnectionError:
            LOG.debug("websocket %s went away before its answer", self.name)
        except TimeoutError:
            self._log("ws-not-reading", logging.WARNING, "closing websocket %s: it took no answer for %g s",
                      self._hub.stall_timeout)
            await self.close(WSCloseCode.POLICY_VIOLATION, "not reading")

    async def close(self, code: int, reason: str) -> None:
        """Close with ``code``; a client that does not answer within a second has its connection cut."""
        await self.unsubscribe()
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT_SECONDS):
                await self.ws.close(code=code, message=reason.encode()[:123])
        except (TimeoutError, ConnectionError):
            if self._transport is not None:
                self._transport.abort()


def _address_prefixes(message: dict[str, Any]) -> tuple[str, ...]:
    prefixes = message.get("address_prefixes") or []
    if not isinstance(prefixes, list) or not all(isinstance(prefix, str) for prefix in prefixes):
        raise _BadRequest("address_prefixes must be a list of address prefixes (hex strings)")
    if len(prefixes) > MAX_ADDRESS_PREFIXES:
        raise _BadRequest(f"at most {MAX_ADDRESS_PREFIXES} address_prefixes may be given, not {len(prefixes)}")
    return tuple(prefixes)


async def subscriptions(request: web.Request) -> web.StreamResponse:
    """The websocket; 429 / code 90 when the ledger has no subscriber slot left."""
    ws = web.WebSocketResponse(compress=False, max_msg_size=MAX_MESSAGE_BYTES)
    if not ws.can_prepare(request).ok:
        raise ApiError(91)
    hub = request.app[LEDGER].events
    try:
        slot = hub.reserve()
    except TooManySubscribers as error:
        request.app[LOG_LIMITER].log(
            LOG, "subscribers-full", logging.WARNING, "refusing a websocket from %s: %s", request.remote, error
        )
        raise ApiError(90, message=f"{error}.") from None
    transport = request.transport
    peer = transport.get_extra_info("peername") if transport is not None else None
    name = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(request.remote)
    session = WebsocketSession(ws, hub, name, transport)
    sessions = request.app[WEBSOCKETS]
    try:
        await ws.prepare(request)
        sessions.add(session)
        await session.serve()
    except ConnectionError:
        LOG.debug("websocket %s went away", session.name)
    finally:
        sessions.discard(session)
        await session.unsubscribe()
        slot.release()
    return ws


async def close_all(app: web.Application) -> None:
    """On shutdown: close every websocket with 1001 ``Server shutdown``, as Sawtooth's REST API does."""
    sessions = list(app[WEBSOCKETS])
    await asyncio.gather(
        *(session.close(WSCloseCode.GOING_AWAY, "Server shutdown") for session in sessions), return_exceptions=True
    )
