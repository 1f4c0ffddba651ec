"""``POST /tictactoe-cheat/send``: send the message the body describes, unchecked, in a game's thread."""

from __future__ import annotations

from acapy_agent.messaging.decorators.thread_decorator import ThreadDecorator
from aiohttp import web

from xo_aries.messages import Move, Outcome
from xo_client.aries import DIDCOMM_PROTOCOL


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


async def register(app: web.Application) -> None:
    """ACA-Py's hook."""
    app.add_routes([web.post("/tictactoe-cheat/send", send)])
