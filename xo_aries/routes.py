"""The admin routes a controller plays with, and the event that brings problem-reports to their games.

- ``POST /tictactoe/start`` ``{"connection_id", "me": "X"|"O", "move": "B2"?}``: a new game (X opens
  with its move; O starts without one and X opens);
- ``POST /tictactoe/{thread_id}/move`` ``{"cell": "B2"}``: my next move;
- ``POST /tictactoe/{thread_id}/abandon``: end the game with an ``outcome``;
- ``GET /tictactoe/games`` (``?connection_id=&state=``) and ``GET /tictactoe/games/{thread_id}``.

Each answers with the game (or ``{"results": [...]}``) as the webhooks carry it. A move my own
agent can see is illegal (occupied cell, out of turn, the game over) is refused here with a
409 and is never sent; malformed input is a 400, an unknown game a 404, each with a JSON body
``{"error": {"code", "title", "message"}}`` whose ``code`` is the protocol's problem code
where one applies.
"""

from __future__ import annotations

import json
import re
from http import HTTPStatus
from typing import Any, Final

from acapy_agent.admin.decorators.auth import tenant_authentication
from acapy_agent.admin.request_context import AdminRequestContext
from acapy_agent.core.event_bus import Event, EventBus
from acapy_agent.core.profile import Profile
from acapy_agent.messaging.models.openapi import OpenAPISchema
from aiohttp import web
from aiohttp_apispec import docs, match_info_schema, querystring_schema, request_schema, response_schema
from marshmallow import fields

from xo_aries.manager import ConnectionNotReady, GameManager, GameNotFound
from xo_aries.player import STATES, Refusal
from xo_aries.records import GameRecordSchema
from xo_aries.referee import LedgerUnavailable

TAG: Final = "tictactoe"
#: The largest request body the routes read.
MAX_BODY: Final = 4096
#: ACA-Py's event for a received problem-report (its core handler's).
PROBLEM_REPORT_EVENT: Final = "acapy::problem_report"


class StartSchema(OpenAPISchema):
    """``POST /tictactoe/start``."""

    connection_id = fields.Str(required=True, metadata={"description": "the connection to play over"})
    me = fields.Str(required=True, metadata={"description": "my mark: X (moves first) or O", "example": "X"})
    move = fields.Str(required=False, metadata={"description": "X's first cell, A1 to C3", "example": "B2"})


class MoveSchema(OpenAPISchema):
    """``POST /tictactoe/{thread_id}/move``."""

    cell = fields.Str(required=True, metadata={"description": "the cell to mark, A1 to C3", "example": "B2"})


class ThreadSchema(OpenAPISchema):
    """The game a route is about."""

    thread_id = fields.Str(required=True, metadata={"description": "the game's thread id"})


class GamesQuerySchema(OpenAPISchema):
    """Filters of ``GET /tictactoe/games``."""

    connection_id = fields.Str(required=False, metadata={"description": "only games with this connection"})
    state = fields.Str(required=False, metadata={"description": f"only games in this state: {', '.join(STATES)}"})


class GameListSchema(OpenAPISchema):
    """``GET /tictactoe/games``."""

    results = fields.List(fields.Nested(GameRecordSchema()), metadata={"description": "the games, oldest first"})


def _error(status: int, code: str, message: str) -> web.Response:
    """A 4xx/5xx JSON error a controller can act on: a machine code beside the human message."""
    error = {"code": code, "title": HTTPStatus(status).phrase, "message": message}
    return web.json_response({"error": error}, status=status)


def _refused(refusal: Refusal) -> web.Response:
    """A move the player's own agent sees is illegal: 409 when the game's state forbids it, else 400; never sent."""
    return _error(409 if refusal.conflict else 400, refusal.code, refusal.explanation)


async def _body(request: web.BaseRequest) -> dict[str, Any]:
    """The JSON object the request carries; ``ValueError`` for anything else."""
    raw = await request.read()
    if len(raw) > MAX_BODY:
        raise ValueError(f"the request body is larger than {MAX_BODY} bytes")
    try:
        body = json.loads(raw or b"{}")
    except (UnicodeDecodeError, json.JSONDecodeError) as bad:
        raise ValueError(f"the request body is not JSON: {bad}") from None
    if not isinstance(body, dict):
        raise ValueError("the request body must be a JSON object")
    return body


def _manager(request: web.BaseRequest) -> GameManager:
    context: AdminRequestContext = request["context"]
    return GameManager(context.profile, request["outbound_message_router"])


async def _answer(request: web.BaseRequest, action: str) -> web.Response:
    """Run one of the changing routes, mapping every refusal to its 4xx."""
    manager = _manager(request)
    try:
        body = await _body(request) if action in ("start", "move") else {}
        if action == "start":
            record = await manager.start(body.get("connection_id"), body.get("me"), body.get("move"))
        elif action == "move":
            record = await manager.move(request.match_info["thread_id"], body.get("cell"))
        else:
            record = await manager.abandon(request.match_info["thread_id"])
    except GameNotFound as missing:
        return _error(404, "not-found", str(missing))
    except ConnectionNotReady as unready:
        return _error(400, "connection", str(unready))
    except Refusal as refusal:
        return _refused(refusal)
    except LedgerUnavailable as unavailable:
        return _error(503, "ledger", str(unavailable))
    except ValueError as bad:
        return _error(400, "bad-request", str(bad))
    return web.json_response(record.serialize())


@docs(tags=[TAG], summary="Start a game with a connection (X opens with its move; O invites X to open)")
@request_schema(StartSchema())
@response_schema(GameRecordSchema(), 200)
@tenant_authentication
async def start_game(request: web.BaseRequest) -> web.Response:
    """``POST /tictactoe/start``."""
    return await _answer(request, "start")


@docs(tags=[TAG], summary="Make my next move; an illegal one is refused (409) and never sent")
@match_info_schema(ThreadSchema())
@request_schema(MoveSchema())
@response_schema(GameRecordSchema(), 200)
@tenant_authentication
async def make_move(request: web.BaseRequest) -> web.Response:
    """``POST /tictactoe/{thread_id}/move``."""
    return await _answer(request, "move")


@docs(tags=[TAG], summary="Abandon the game: send an outcome with a null winner")
@match_info_schema(ThreadSchema())
@response_schema(GameRecordSchema(), 200)
@tenant_authentication
async def abandon_game(request: web.BaseRequest) -> web.Response:
    """``POST /tictactoe/{thread_id}/abandon``."""
    return await _answer(request, "abandon")


@docs(tags=[TAG], summary="The games, oldest first")
@querystring_schema(GamesQuerySchema())
@response_schema(GameListSchema(), 200)
@tenant_authentication
async def list_games(request: web.BaseRequest) -> web.Response:
    """``GET /tictactoe/games``."""
    records = await _manager(request).games(request.query.get("connection_id"), request.query.get("state"))
    return web.json_response({"results": [record.serialize() for record in records]})


@docs(tags=[TAG], summary="One game: board, moves, whose turn, outcome, problems")
@match_info_schema(ThreadSchema())
@response_schema(GameRecordSchema(), 200)
@tenant_authentication
async def show_game(request: web.BaseRequest) -> web.Response:
    """``GET /tictactoe/games/{thread_id}``."""
    try:
        record = await _manager(request).game(request.match_info["thread_id"])
    except GameNotFound as missing:
        return _error(404, "not-found", str(missing))
    return web.json_response(record.serialize())


async def register(app: web.Application) -> None:
    """ACA-Py's hook: add the routes to the admin server."""
    app.add_routes(
        [
            web.post("/tictactoe/start", start_game),
            web.post("/tictactoe/{thread_id}/move", make_move),
            web.post("/tictactoe/{thread_id}/abandon", abandon_game),
            web.get("/tictactoe/games", list_games, allow_head=False),
            web.get("/tictactoe/games/{thread_id}", show_game, allow_head=False),
        ]
    )


def post_process_routes(app: web.Application) -> None:
    """ACA-Py's hook: describe the tag in the admin API's Swagger page."""
    tags = app._state["swagger_dict"].setdefault("tags", [])
    tags.append({"name": TAG, "description": "Aries Tic Tac Toe 1.0, checked by the XO rules"})


def register_events(event_bus: EventBus) -> None:
    """ACA-Py's hook: problem-reports received (ACA-Py's core handler announces them) go to their games."""
    event_bus.subscribe(re.compile(f"^{PROBLEM_REPORT_EVENT}$"), _problem_received)


async def _problem_received(profile: Profile, event: Event) -> None:
    """A problem-report the other agent sent is kept in its game (ACA-Py's handler only announces it)."""
    payload = event.payload if isinstance(event.payload, dict) else {}
    await GameManager(profile, _no_send).received_problem(payload)


async def _no_send(*_: object, **__: object) -> None:
    """Receiving a problem-report never sends anything."""
