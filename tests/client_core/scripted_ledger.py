"""A scripted chain behind the REST API routes a follower uses, imitating real Sawtooth or xo-devnet on /subscriptions.

The test commits blocks (each a list of transactions with their state changes),
drops websockets, forks the chain, refuses the websocket; the server answers
``GET /blocks`` (``head``, ``limit``; newest first; Sawtooth's JSON shapes),
``GET /blocks/{id}``, ``POST /receipts`` and the ``/subscriptions`` websocket the
way either REST API does:

- ``mode="sawtooth"``: ``last_known_block_ids`` is ignored; a subscription starts with
  the newest block the REST API has *seen* (``stale_by`` blocks behind the chain, to
  imitate its event lag), then live blocks. ``deaf`` blocks are committed without
  being sent (its validator connection dropped events).
- ``mode="devnet"``: a subscription with ``last_known_block_ids`` gets every block after
  the newest one it names, or ``{"error": "Unknown block: ..."}``.

It also answers ``/state`` and ``/state/{address}`` (as of ``head``), so a whole ``xo watch``
can run against it, and serves HTTPS (``wss://``) with the test certificate of ``tests/tls``
when ``tls=True``. Every request is recorded (``requests``), so tests can count what a
follower asked.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiohttp import WSCloseCode, web

from tests.hostile_server import TLS_CERTIFICATE, TLS_DIR

NULL_BLOCK_ID = "0" * 16
PREFIX = "5b7349"


def address(key: str, namespace: str = PREFIX) -> str:
    return namespace + hashlib.sha512(key.encode()).hexdigest()[:64]


@dataclass
class Txn:
    """A committed transaction: what it may write (``outputs``) and what it did (address -> bytes, None: deleted)."""

    txn_id: str
    outputs: list[str]
    changes: dict[str, bytes | None]


@dataclass
class Block:
    block_id: str
    num: int
    previous: str
    txns: list[Txn] = field(default_factory=list)

    def delta(self, prefixes: list[str]) -> list[dict[str, str]]:
        """The websocket's ``state_changes``: the last change per address, newest first, under ``prefixes``."""
        seen: dict[str, dict[str, str]] = {}
        for txn in reversed(self.txns):
            for addr, value in reversed(list(txn.changes.items())):
                if addr not in seen:
                    seen[addr] = change_json(addr, value)
        return [change for addr, change in seen.items() if not prefixes or any(addr.startswith(p) for p in prefixes)]

    def message(self, prefixes: list[str]) -> str:
        return json.dumps({
            "block_id": self.block_id,
            "block_num": str(self.num),
            "previous_block_id": self.previous,
            "state_changes": self.delta(prefixes),
        })

    def rest_json(self) -> dict:
        transactions = [
            {
                "header": {
                    "family_name": "xo", "family_version": "1.0", "signer_public_key": "02" + "ab" * 32,
                    "inputs": txn.outputs, "outputs": txn.outputs, "dependencies": [], "nonce": "",
                    "batcher_public_key": "02" + "ab" * 32, "payload_sha512": "00",
                },
                "header_signature": txn.txn_id,
                "payload": base64.b64encode(b"payload").decode(),
            }
            for txn in self.txns
        ]  # fmt: skip
        batches = [{"header": {}, "header_signature": "ba" * 64, "trace": False, "transactions": transactions}]
        return {
            "batches": batches if self.txns else [],
            "header": {"block_num": str(self.num), "previous_block_id": self.previous, "batch_ids": []},
            "header_signature": self.block_id,
        }


def change_json(addr: str, value: bytes | None) -> dict[str, str]:
    if value is None:
        return {"address": addr, "type": "DELETE", "value": ""}
    return {"address": addr, "value": base64.b64encode(value).decode(), "type": "SET"}


class ScriptedLedger:
    def __init__(self, mode: str = "sawtooth", prefix: str = "", stale_by: int = 0, tls: bool = False) -> None:
        self.mode = mode
        self.prefix = prefix
        self.tls = tls
        self.chain: list[Block] = []
        self.txn_count = 0
        self.fork_salt = 0
        self.stale_by = stale_by
        self.deaf = False
        self.refuse_websocket: int | None = None
        self.drop_at_once = False
        self.require_auth: str | None = None
        self.requests: list[str] = []
        self.sockets: dict[web.WebSocketResponse, list[str] | None] = {}
        self.runner: web.AppRunner | None = None
        self.port = 0
        self.add_block([])

    # --- scripting ---

    def add_block(self, txns: list[Txn]) -> Block:
        num = len(self.chain)
        previous = self.chain[-1].block_id if self.chain else NULL_BLOCK_ID
        block_id = hashlib.sha512(f"{num}/{previous}/{self.fork_salt}".encode()).hexdigest()
        block = Block(block_id, num, previous, txns)
        self.chain.append(block)
        return block

    def txn(self, changes: dict[str, bytes | None], outputs: list[str] | None = None) -> Txn:
        self.txn_count += 1
        txn_id = hashlib.sha512(f"txn {self.txn_count}".encode()).hexdigest()
        return Txn(txn_id, outputs if outputs is not None else sorted(changes), changes)

    async def commit(self, *changes: dict[str, bytes | None]) -> Block:
        """One block with one transaction per ``changes`` dict; sent to subscribers unless ``deaf``."""
        block = self.add_block([self.txn(change) for change in changes])
        if not self.deaf:
            for ws, prefixes in list(self.sockets.items()):
                if prefixes is not None:
                    await ws.send_str(block.message(prefixes))
        return block

    async def send_again(self, block: Block) -> None:
        """A live message for ``block`` once more, as Sawtooth's REST API may send (``fork_detected`` added)."""
        for ws, prefixes in list(self.sockets.items()):
            if prefixes is not None:
                document = json.loads(block.message(prefixes))
                document["fork_detected"] = True
                await ws.send_str(json.dumps(document))

    def fork(self, from_num: int) -> None:
        """Replace every block from ``from_num`` on with blocks of another fork."""
        self.fork_salt += 1
        del self.chain[from_num:]

    async def drop_websockets(self, code: int = WSCloseCode.GOING_AWAY) -> None:
        for ws in list(self.sockets):
            await ws.close(code=code, message=b"Server shutdown")

    @property
    def head(self) -> Block:
        return self.chain[-1]

    def gets(self, path_start: str) -> list[str]:
        return [request for request in self.requests if request.startswith(f"GET {self.prefix}{path_start}")]

    def posts(self, path_start: str) -> list[str]:
        return [request for request in self.requests if request.startswith(f"POST {self.prefix}{path_start}")]

    # --- serving ---

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}{self.prefix}"

    async def start(self, port: int = 0) -> ScriptedLedger:
        app = web.Application(middlewares=[self._record])
        app.router.add_get(f"{self.prefix}/blocks", self._blocks)
        app.router.add_get(f"{self.prefix}/blocks/{{block_id}}", self._block)
        app.router.add_post(f"{self.prefix}/receipts", self._receipts)
        app.router.add_get(f"{self.prefix}/subscriptions", self._subscriptions)
        app.router.add_get(f"{self.prefix}/state", self._state_list)
        app.router.add_get(f"{self.prefix}/state/{{address}}", self._state)
        self.runner = web.AppRunner(app, shutdown_timeout=0.1)
        await self.runner.setup()
        context = None
        if self.tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(TLS_CERTIFICATE, TLS_DIR / "localhost-key.pem")
        site = web.TCPSite(self.runner, "127.0.0.1", port, ssl_context=context)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def stop(self) -> None:
        await self.drop_websockets()
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    @web.middleware
    async def _record(self, request: web.Request, handler):
        self.requests.append(f"{request.method} {request.path_qs}")
        if self.require_auth is not None and request.headers.get("Authorization") != self.require_auth:
            return error(401, 10, "Unauthorized")
        return await handler(request)

    def _by_id(self, block_id: str) -> Block | None:
        return next((block for block in self.chain if block.block_id == block_id), None)

    async def _blocks(self, request: web.Request) -> web.Response:
        head = self.head if "head" not in request.query else self._by_id(request.query["head"])
        if head is None:
            return error(404, 50, "Head Not Found")
        limit = int(request.query.get("limit", "100"))
        start = int(request.query.get("start", str(head.num)))
        page = [self.chain[num].rest_json() for num in range(start, max(start - limit, -1), -1)]
        envelope: dict = {"data": page, "head": head.block_id, "link": "x", "paging": {"limit": limit, "start": start}}
        if start - limit >= 0:
            query = f"head={head.block_id}&start={start - limit}&limit={limit}"
            envelope["paging"]["next"] = f"http://elsewhere/blocks?{query}"
        return web.json_response(envelope)

    async def _block(self, request: web.Request) -> web.Response:
        block = self._by_id(request.match_info["block_id"])
        if block is None:
            return error(404, 70, "Block Not Found")
        return web.json_response({"data": block.rest_json(), "link": "x"})

    def _state_at(self, head: Block) -> dict[str, bytes]:
        state: dict[str, bytes] = {}
        for block in self.chain[: head.num + 1]:
            for txn in block.txns:
                for addr, value in txn.changes.items():
                    if value is None:
                        state.pop(addr, None)
                    else:
                        state[addr] = value
        return state

    async def _state(self, request: web.Request) -> web.Response:
        head = self.head if "head" not in request.query else self._by_id(request.query["head"])
        if head is None:
            return error(404, 50, "Head Not Found")
        value = self._state_at(head).get(request.match_info["address"])
        if value is None:
            return error(404, 75, "State Not Found")
        return web.json_response({"data": base64.b64encode(value).decode(), "head": head.block_id, "link": "x"})

    async def _state_list(self, request: web.Request) -> web.Response:
        head = self.head if "head" not in request.query else self._by_id(request.query["head"])
        if head is None:
            return error(404, 50, "Head Not Found")
        prefix = request.query.get("address", "")
        data = [
            {"address": addr, "data": base64.b64encode(value).decode()}
            for addr, value in sorted(self._state_at(head).items())
            if addr.startswith(prefix)
        ]
        return web.json_response({"data": data, "head": head.block_id, "link": "x", "paging": {"limit": None}})

    async def _receipts(self, request: web.Request) -> web.Response:
        wanted = await request.json()
        txns = {txn.txn_id: txn for block in self.chain for txn in block.txns}
        data = []
        for txn_id in wanted:
            if txn_id not in txns:
                return error(404, 80, "Transaction Receipt Not Found")
            changes = [change_json(addr, value) for addr, value in txns[txn_id].changes.items()]
            data.append({"id": txn_id, "state_changes": changes, "events": [], "data": []})
        return web.json_response({"data": data})

    async def _subscriptions(self, request: web.Request) -> web.StreamResponse:
        if self.refuse_websocket is not None:
            if self.refuse_websocket == 404:
                return web.Response(status=404, text="404: Not Found")
            return error(self.refuse_websocket, 90, "Too Many Subscribers")
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        if self.drop_at_once:
            await ws.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"go away")
            return ws
        self.sockets[ws] = None
        try:
            async for message in ws:
                document = json.loads(message.data)
                if document.get("action") == "subscribe":
                    await self._subscribe(ws, document)
        finally:
            self.sockets.pop(ws, None)
        return ws

    async def _subscribe(self, ws: web.WebSocketResponse, document: dict) -> None:
        prefixes = document.get("address_prefixes", [])
        if self.mode == "sawtooth":
            self.sockets[ws] = prefixes
            await ws.send_str(self.chain[len(self.chain) - 1 - self.stale_by].message(prefixes))
            return
        known = [self._by_id(block_id) for block_id in document.get("last_known_block_ids", [])]
        known = [block for block in known if block is not None]
        if document.get("last_known_block_ids") and not known:
            await ws.send_str(json.dumps({"error": "Unknown block: none of the last known block ids is a block"}))
            return
        start = max(block.num for block in known) + 1 if known else len(self.chain) - 1
        for block in self.chain[start:]:
            await ws.send_str(block.message(prefixes))
        self.sockets[ws] = prefixes


def error(status: int, code: int, title: str) -> web.Response:
    return web.json_response({"error": {"code": code, "title": title, "message": title}}, status=status)


@contextmanager
def in_a_thread(server: ScriptedLedger) -> Iterator[ScriptedLedger]:
    """``server`` served from an event loop on a thread of its own, so a blocking client can run here.

    ``server.commit_now(...)`` commits a block from this thread (at most 10 s).
    """
    loop = asyncio.new_event_loop()
    loop.run_until_complete(server.start())
    serving = threading.Thread(target=loop.run_forever, daemon=True)
    serving.start()
    server.commit_now = lambda *changes: asyncio.run_coroutine_threadsafe(server.commit(*changes), loop).result(10)
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        serving.join(10)
