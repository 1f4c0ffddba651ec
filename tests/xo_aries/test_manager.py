"""What the game manager logs about another agent's messages: its thread id escaped, never a forged log line."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

import pytest

pytest.importorskip("acapy_agent", reason="ACA-Py is not installed: pip install -e '.[aries]' (Python 3.12+)")

from acapy_agent.messaging.decorators.thread_decorator import ThreadDecorator

from xo_aries.manager import GameManager
from xo_aries.messages import Move
from xo_aries.player import Refusal
from xo_client.aries import BAD_MOVE, MOVE, PROTOCOL


def test_a_refused_message_is_logged_with_its_thread_id_escaped(caplog):
    sent = []

    async def send(message, connection_id):
        sent.append((message, connection_id))

    hostile = "game-1\nINFO forged line \x1b[2J"
    move = Move(_type=f"{PROTOCOL}/{MOVE}", me="X", moves=["X:B2"])
    move._thread = ThreadDecorator(thid=hostile)
    with caplog.at_level(logging.INFO, logger="xo_aries.manager"):
        asyncio.run(
            GameManager(SimpleNamespace(settings={}), send)._refuse(
                move, "connection-1", None, Refusal(BAD_MOVE, "no such game")
            )
        )
    [line] = [record.getMessage() for record in caplog.records if "refusing" in record.getMessage()]
    assert "\n" not in line and "\x1b" not in line
    assert "game-1\\x0aINFO forged line \\x1b[2J" in line
    assert [connection for _, connection in sent] == ["connection-1"]
