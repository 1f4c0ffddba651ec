"""What the server's follower tells the pages about the REST API: open pages hear the news, new pages the state."""

from __future__ import annotations

import asyncio
import json

from client_core.keys import KeyNames
from xo_web.fanout import Fanout
from xo_web.live import Live
from xo_web.lobby import rps_lobby, xo_lobby

URL = "http://127.0.0.1:9"


def decoded(event: bytes) -> tuple[str, dict]:
    """(kind, data) of one text/event-stream event."""
    lines = dict(line.split(": ", 1) for line in event.decode("ascii").strip().splitlines())
    return lines["event"], json.loads(lines["data"])


def live_server() -> tuple[Live, Fanout]:
    fanout = Fanout()
    return Live(URL, None, xo_lobby(), rps_lobby(), fanout, names=lambda: KeyNames({})), fanout


def test_a_page_open_when_the_server_is_back_is_told_and_a_page_opened_later_sees_only_that_it_is_live(capsys):
    live, fanout = live_server()

    async def scenario() -> tuple[list[tuple[str, dict]], tuple[str, dict]]:
        open_page = fanout.subscribe(live.snapshot_event())
        await open_page.next()
        live.follower_said(f"lost the REST API at {URL}; reconnecting")
        live.follower_said(f"reconnected to the REST API at {URL}; resuming after block 48")
        heard = [decoded(await open_page.next()) for _ in range(2)]
        return heard, decoded(live.snapshot_event())

    heard, fresh = asyncio.run(scenario())
    assert heard == [
        ("status", {"live": False, "message": f"lost the REST API at {URL}; reconnecting"}),
        ("status", {"live": True, "message": f"reconnected to the REST API at {URL}; resuming after block 48"}),
    ]
    assert fresh[0] == "snapshot"
    assert fresh[1]["status"] == {"live": True, "message": None}
    assert capsys.readouterr().err.splitlines() == [
        f"xo: lost the REST API at {URL}; reconnecting",
        f"xo: reconnected to the REST API at {URL}; resuming after block 48",
    ]


def test_a_page_opened_while_the_server_is_offline_is_told_why(capsys):
    live, _ = live_server()
    live.say("credentials refused; trying again in 5 s", live=False)
    assert decoded(live.snapshot_event())[1]["status"] == {
        "live": False,
        "message": "credentials refused; trying again in 5 s",
    }
    assert capsys.readouterr().err == "xo: credentials refused; trying again in 5 s\n"
