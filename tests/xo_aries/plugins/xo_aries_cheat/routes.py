"""The misbehaving agent's routes, and what it keeps of the problem-reports it receives.

- ``POST /tictactoe-cheat/send``: send the message the body describes, unchecked, in a game's thread;
- ``POST /tictactoe-cheat/send-raw``: send a JSON message exactly as given (``message``), as an
  agent written to the seed would, with no ACA-Py class shaping it;
- ``GET /tictactoe-cheat/reports``: every problem-report received, as ACA-Py announced it.
"""

from __future__ import annotations

import json
import re

from acapy_agent.core.event_bus import Event, EventBus
from acapy_agent.core.profile import Profile
from acapy_agent.messaging.decorators.thread_decorator import ThreadDecorator
from aiohttp import web

from xo_aries.messages import Move, Outcome
from xo_client.aries import DIDCOMM_PROTOCOL

#: Problem-reports received, oldest first (one agent per process, so one list).
RECEIVED: list[dict] = []


async def send(request: web.BaseRequest) -> web.Response:
    """Body: ``connection_id``, ``thread_id``, ``kind`` (move|outcome), and the message's fields."""
    body = await request.json()
    kind = body.pop("kind")
    thread_id = body.pop("thread_id")
    connection_id = body.pop("connection_id")
    cls = Move if kind == "move" else Outcome
    message = cls(_type=f"{DIDCOMM_PROTOCOL}/{kind}", **body)
    message._thread = ThreadDecorator(thid=thread_id)
    await request["outbound_message_router"](message, connection_id=connection_id)
    return web.json_response({"sent": message.serialize()})


async def send_raw(request: web.BaseRequest) -> web.Response:
    """Body: ``connection_id`` and ``message``, the JSON object to send as it is."""
    body = await request.json()
    await request["outbound_message_router"](json.dumps(body["message"]), connection_id=body["connection_id"])
    return web.json_response({"sent": body["message"]})


async def reports(_: web.BaseRequest) -> web.Response:
    """Every problem-report received so far."""
    return web.json_response({"results": RECEIVED})


async def register(app: web.Application) -> None:
    """ACA-Py's hook."""
    app.add_routes([
        web.post("/tictactoe-cheat/send", send),
        web.post("/tictactoe-cheat/send-raw", send_raw),
        web.get("/tictactoe-cheat/reports", reports, allow_head=False),
    ])  # fmt: skip


def register_events(event_bus: EventBus) -> None:
    """ACA-Py's hook: keep every problem-report received."""
    event_bus.subscribe(re.compile("^acapy::problem_report$"), _keep)


async def _keep(_: Profile, event: Event) -> None:
    RECEIVED.append(dict(event.payload))
