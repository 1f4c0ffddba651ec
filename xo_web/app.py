"""The local server's application: routes, the security layer, and the follower's life.

Routes (docs/web.md tells more):

- ``GET /``: the page, with this run's token;
- ``GET /static/{path}``: the page's CSS and JavaScript modules;
- ``GET /api/session``: the keys one may play as, the REST API, the version;
- ``GET /api/events``: the chain as server-sent events (:mod:`xo_web.events`);
- ``GET /api/history?name=NAME``: the name's committed moves (:mod:`xo_web.history`);
- ``POST /api/moves``: ``{"player", "action", "name", "space"}``, a move (:mod:`xo_web.moves`);
- ``POST /api/rps``: ``{"player", "op", "name", ...}``, an rps op or throw (:mod:`xo_web.rps_moves`);
- ``POST /api/computer``: ``{"name", "level"}``, the computer plays in a game (:mod:`xo_web.computer`);
- ``POST /api/computer/stop``: ``{"name"}``, the computer leaves it;
- ``GET /api/chips?player=NAME``: the player's chips and channels (:mod:`xo_web.chips_desk`);
- ``POST /api/chips/open``, ``/api/chips/join``: a channel opened, a deposit paid;
- ``POST /api/chips/play``, ``/api/chips/move``: a staked match played from the page (:mod:`xo_web.chips_matches`);
- ``POST /api/chips/challenge``, ``/api/chips/finalize``: a silent opponent held to the latest state, and paid out;
- ``GET /api/chips/offers``: the open offers on the broker, verified (:mod:`xo_web.offer_feed`);
- ``POST /api/chips/offer``, ``/api/chips/withdraw``: an offer published for the player, withdrawn
  (:mod:`xo_web.offer_posts`); ``POST /api/chips/accept``: an offer accepted (:mod:`xo_web.offer_accepts`);
- ``GET /api/ratings?game=xo|rps|chips``: every player's rating, read from the chain (:mod:`xo_web.ratings`).

Every request passes :class:`xo_web.security.Guard` first; every answer carries
the security headers; every error is a Sawtooth-style error body
(:mod:`xo_web.errors`), whatever raised it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from aiohttp import web

from chips_client.channels import rounds_of
from chips_client.store import ChannelTerms, default_path
from client_core.arguments import DEFAULT_BROKER
from client_core.broker import BrokerAddress
from client_core.errors import InvalidInput
from client_core.keys import KeyNames, load_signer, private_key_names
from xo_client.ai import Level
from xo_client.seat import AI_KEY_NAME
from xo_core import __version__
from xo_core.log_limits import LogLimiter
from xo_core.server_logs import RequestLogger
from xo_core.text import printable
from xo_web import errors
from xo_web.chips_desk import ChipsDesk, parse_channel, parse_offer_id, parse_open, parse_player
from xo_web.chips_matches import Matches
from xo_web.computer import Computer
from xo_web.errors import ApiError, bad_request
from xo_web.events import EventStream, encode
from xo_web.explorer import Explorer
from xo_web.fanout import Fanout
from xo_web.history import game_history
from xo_web.live import Live
from xo_web.lobby import rps_lobby, xo_lobby
from xo_web.moves import MAX_MOVES_IN_FLIGHT, Mover, parse_move
from xo_web.offer_accepts import OfferAccepts
from xo_web.offer_feed import OfferFeed
from xo_web.offer_posts import OfferPosts, parse_offer
from xo_web.page import Page
from xo_web.ratings import Leaderboard
from xo_web.rps_moves import Reveals, RpsMover, parse_rps
from xo_web.security import Guard, add_security_headers
from xo_web.tournaments import Tournaments, parse_tournament

SHUTDOWN_SECONDS: Final = 2.0
"""How long requests still running (a move being waited for) may finish when the server stops."""
MAX_BODY_BYTES: Final = 16 * 1024
"""Largest request body: a move is a few hundred bytes."""
JSON_TYPE: Final = "application/json"
LOG = logging.getLogger("xo_web")


@dataclass(frozen=True)
class Settings:
    """What a run of the server is for: the REST API, whose keys, and the port and token the page uses."""

    rest_url: str
    auth: tuple[str, str] | None
    key_dir: Path
    default_key: str | None
    port: int
    token: str
    trace: Callable[[str], None] | None = None
    broker: BrokerAddress | None = None
    """The MQTT broker staked matches exchange their messages through (``--broker``; None: the default one)."""
    ratings_cache: Path | None = None
    """Where the leaderboard's games are cached (``xo ratings``'s file for the REST API); None: read all each run."""


class Keys:
    """The key directory as the page sees it: the keys one may play as, and names for public keys.

    Both are read again whenever a page loads (:meth:`read`), so a key made with
    ``xo keygen`` while the server runs shows up at the next reload.
    """

    def __init__(self, key_dir: Path) -> None:
        self.key_dir = key_dir
        self.names = KeyNames.of_dir(key_dir)

    def current_names(self) -> KeyNames:
        return self.names

    def read_names(self) -> None:
        """Read the names again (a key was just made)."""
        self.names = KeyNames.of_dir(self.key_dir)

    def read(self) -> list[dict[str, Any]]:
        """Read the directory again: each private key's name (exact and shown), public key, or why it cannot sign."""
        self.read_names()
        found = []
        for name in private_key_names(self.key_dir):
            try:
                public_key, problem = load_signer(self.key_dir, name, "xo web").public_key, None
            except InvalidInput as error:
                public_key, problem = None, printable(error.message, escape_backslashes=False)
            found.append({"name": name, "shown": printable(name), "public_key": public_key, "problem": problem})
        return found


class Server:
    """The handlers and the state they share."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.keys = Keys(settings.key_dir)
        self.lobby = xo_lobby()
        self.rps = rps_lobby()
        self.fanout = Fanout()
        self.computer = Computer(
            settings.rest_url, settings.auth, settings.key_dir, self.lobby, self.keys.current_names,
            publish=lambda kind, data: self.fanout.publish(encode(kind, data)), key_made=self.keys.read_names,
            trace=settings.trace,
        )  # fmt: skip
        self.live = Live(
            settings.rest_url, settings.auth, self.lobby, self.rps, self.fanout, names=self.keys.current_names,
            extra=lambda: {"computer": self.computer.view(), "chips": self.matches.view()}, trace=settings.trace,
        )  # fmt: skip
        self.live.listeners.append(self.computer.on_changes)
        self.events = EventStream(self.fanout, self.live.snapshot_event)
        self.mover = Mover(
            settings.rest_url, settings.auth, settings.key_dir, self.keys.current_names, trace=settings.trace
        )
        self.rps_mover = RpsMover(
            settings.rest_url, settings.auth, settings.key_dir, self.keys.current_names, trace=settings.trace
        )
        self.reveals = Reveals(self.rps_mover, self.rps, lambda kind, data: self.fanout.publish(encode(kind, data)))
        self.rps_mover.on_commit = self.reveals.committed
        self.live.rps_listeners.append(self.reveals.on_changes)
        self.desk = ChipsDesk(
            settings.rest_url, settings.auth, settings.key_dir, self.keys.current_names, trace=settings.trace
        )
        broker = settings.broker or BrokerAddress.parse(DEFAULT_BROKER)
        self.matches = Matches(
            settings.rest_url, settings.auth, broker, lambda key: default_path(settings.key_dir, key),
            publish=lambda data: self.fanout.publish(encode("chips", data)), trace=settings.trace,
            names=self.keys.current_names,
        )  # fmt: skip
        self.leaderboard = Leaderboard(
            settings.rest_url, settings.auth, lambda data: self.fanout.publish(encode("ratings", data)),
            cache=settings.ratings_cache, trace=settings.trace,
        )  # fmt: skip
        self.offers = OfferFeed(
            broker, lambda data: self.fanout.publish(encode("offers", data)), names=self.keys.current_names,
            rating_of=self.leaderboard.rating_of,
        )  # fmt: skip
        self.offer_posts = OfferPosts(self.desk, self.matches, self.offers)
        self.tournaments = Tournaments(self.desk, self.matches)
        self.accepts = OfferAccepts(self.desk, self.matches, self.offers)
        self.live.listeners.append(self.offer_posts.block_committed)
        self.live.listeners.append(self.accepts.block_committed)
        self.moves_in_flight = asyncio.Semaphore(MAX_MOVES_IN_FLIGHT)
        self.page = Page(settings.token)

    async def session(self, _request: web.Request) -> web.Response:
        keys = await asyncio.to_thread(self.keys.read)
        default = self.settings.default_key
        return json_response(
            {
                "version": __version__,
                "rest_url": self.settings.rest_url,
                "key_dir": printable(str(self.settings.key_dir)),
                "keys": keys,
                "default_key": default if any(key["name"] == default for key in keys) else None,
                "computer_key": AI_KEY_NAME,
                "levels": [str(level) for level in Level],
            }
        )

    async def history(self, request: web.Request) -> web.Response:
        name = request.query.get("name")
        if name is None:
            raise bad_request("name the game: /api/history?name=NAME")
        s = self.settings
        names = self.keys.current_names()
        return json_response(await asyncio.to_thread(game_history, s.rest_url, s.auth, name, names, s.trace))

    async def chain_transactions(self, request: web.Request) -> web.Response:
        """``GET /api/chain/transactions?game=NAME|rps=NAME|channel=ID``: one game's or channel's transactions."""
        given = [kind for kind in ("game", "rps", "channel") if kind in request.query]
        if len(given) != 1:
            raise bad_request("name one game or channel: /api/chain/transactions?game=NAME, ?rps=NAME or ?channel=ID")
        explorer = self.explorer()
        names = self.keys.current_names()
        kind = given[0]
        return json_response(await asyncio.to_thread(explorer.transactions_of, kind, request.query[kind], names))

    async def chain_transaction(self, request: web.Request) -> web.Response:
        """``GET /api/chain/transaction?id=ID``: one committed transaction, its block, batch, time and outcome."""
        ident = request.query.get("id")
        if ident is None:
            raise bad_request("name the transaction: /api/chain/transaction?id=ID")
        names = self.keys.current_names()
        return json_response(await asyncio.to_thread(self.explorer().one_transaction, ident, names))

    def explorer(self) -> Explorer:
        return Explorer(self.settings.rest_url, self.settings.auth, self.settings.trace)

    async def ratings(self, request: web.Request) -> web.Response:
        """``GET /api/ratings``: the leaderboard of every game, or of one family's (``?game=xo``)."""
        return json_response(self.leaderboard.view(request.query.get("game"), self.keys.current_names()))

    async def move(self, request: web.Request) -> web.Response:
        move = parse_move(await read_json(request))
        return await self._play(self.mover.play, move)

    async def rps_op(self, request: web.Request) -> web.Response:
        op = parse_rps(await read_json(request))
        return await self._play(self.rps_mover.play, op)

    async def _play(self, play: Callable[[Any], tuple[int, dict[str, Any]]], what: object) -> web.Response:
        """``play(what)`` in a worker thread, a few at a time; its place is held until the thread is done, even if
        the page went away (the move goes on regardless)."""
        if self.moves_in_flight.locked():
            raise ApiError(
                429, errors.BUSY, "Too Many Moves",
                f"{MAX_MOVES_IN_FLIGHT} moves are already on their way; try again when one has ended",
            )  # fmt: skip

        async def in_thread() -> tuple[int, dict[str, Any]]:
            async with self.moves_in_flight:
                return await asyncio.to_thread(play, what)

        status, answer = await asyncio.shield(in_thread())
        return json_response(answer, status=status)

    async def start_computer(self, request: web.Request) -> web.Response:
        body = await read_json(request)
        fields = body if isinstance(body, dict) else {}
        return json_response(await self.computer.start(fields.get("name"), fields.get("level")))

    async def stop_computer(self, request: web.Request) -> web.Response:
        body = await read_json(request)
        self.computer.stop(body.get("name") if isinstance(body, dict) else None)
        return json_response({"stopped": True})

    async def chips(self, request: web.Request) -> web.Response:
        """``GET /api/chips``: the player's chips view, each channel with the match the server plays on it."""
        player = parse_player(dict(request.query))
        view = await asyncio.to_thread(self.desk.view, player)
        playing = {event["channel"]: event for event in self.matches.view() if event["player"] == view["public_key"]}
        for channel in view["channels"]:
            channel["match"] = playing.get(channel["id"])
        return json_response(view)

    async def chips_open(self, request: web.Request) -> web.Response:
        """``POST /api/chips/open``: open a channel with the terms in the body."""
        opening = parse_open(await read_json(request))
        return await self._play(lambda _: (200, self.desk.open(opening)), None)

    async def chips_join(self, request: web.Request) -> web.Response:
        """``POST /api/chips/join``: deposit into a channel the player was invited to."""
        player, ident = parse_channel(await read_json(request))
        return await self._play(lambda _: (200, self.desk.join(player, ident)), None)

    async def chips_challenge(self, request: web.Request) -> web.Response:
        """``POST /api/chips/challenge``: challenge an opponent who stopped moving."""
        player, ident = parse_channel(await read_json(request))
        return await self._play(lambda _: (200, self.desk.challenge(player, ident)), None)

    async def chips_finalize(self, request: web.Request) -> web.Response:
        """``POST /api/chips/finalize``: pay out a channel whose challenge ran out."""
        player, ident = parse_channel(await read_json(request))
        return await self._play(lambda _: (200, self.desk.finalize(player, ident)), None)

    async def chips_play(self, request: web.Request) -> web.Response:
        """``POST /api/chips/play``: start the match on a channel, the server playing for the player."""
        player, ident = parse_channel(await read_json(request))
        self.matches.bind(asyncio.get_running_loop())

        def start(_: object) -> tuple[int, dict[str, Any]]:
            signer = self.desk.player_signer(player)
            record = self.desk.record(ident, signer.public_key)
            with self.desk.store(signer.public_key) as store:
                terms = store.channel(ident) or ChannelTerms(ident.hex()[:8], record.fixed, rounds_of(record.fixed))
            return 200, self.matches.start(player, signer, record, terms)

        return await self._play(start, None)

    async def chips_move(self, request: web.Request) -> web.Response:
        """``POST /api/chips/move``: a move from the page for a match the server plays; 202 as it is queued."""
        body = await read_json(request)
        player, ident = parse_channel(body)
        assert isinstance(body, dict)
        signer = await asyncio.to_thread(self.desk.player_signer, player)
        self.matches.move(signer.public_key, ident, body.get("space", body.get("throw")))
        return json_response({"accepted": True}, status=202)

    async def chips_offers(self, _request: web.Request) -> web.Response:
        """``GET /api/chips/offers``: the open offers, each verified, with its offerer's name and rating."""
        return json_response(self.offers.view())

    async def chips_offer(self, request: web.Request) -> web.Response:
        """``POST /api/chips/offer``: publish the page's offer for its player; its first accept is joined and played."""
        offer = parse_offer(await read_json(request))
        return await self._play(lambda _: (200, self.offer_posts.post(offer)), None)

    async def chips_withdraw(self, request: web.Request) -> web.Response:
        """``POST /api/chips/withdraw``: clear the player's open offer from the board."""
        player, offer_id = parse_offer_id(await read_json(request))
        return await self._play(lambda _: (200, self.offer_posts.withdraw(player, offer_id)), None)

    async def chips_accept(self, request: web.Request) -> web.Response:
        """``POST /api/chips/accept``: open the offer's channel for the player; 202, as the join is waited for after."""
        player, offer_id = parse_offer_id(await read_json(request))
        return await self._play(lambda _: (202, self.accepts.accept(player, offer_id)), None)

    async def tournaments_view(self, _request: web.Request) -> web.Response:
        """``GET /api/tournaments``: every tournament, its standings and pairings."""
        return json_response(await asyncio.to_thread(self.tournaments.view))

    async def tournaments_join(self, request: web.Request) -> web.Response:
        """``POST /api/tournaments/join``: the player's buy-in into the tournament's pool."""
        player, name = parse_tournament(await read_json(request))
        return await self._play(lambda _: (200, self.tournaments.join(player, name)), None)

    async def tournaments_play(self, request: web.Request) -> web.Response:
        """``POST /api/tournaments/play``: take part for the player, each round's match played on the page."""
        player, name = parse_tournament(await read_json(request))
        self.matches.bind(asyncio.get_running_loop())
        return await self._play(lambda _: (200, self.tournaments.play(player, name)), None)

    @contextlib.asynccontextmanager
    async def following(self) -> AsyncIterator[None]:
        """The follower runs while the server does; pages' streams end first when it stops."""
        self.reveals.bind(asyncio.get_running_loop())
        self.matches.bind(asyncio.get_running_loop())
        task = asyncio.create_task(self.live.run(), name="xo web: follower")
        ratings = asyncio.create_task(self.leaderboard.run(), name="xo web: ratings")
        offers = asyncio.create_task(self.offers.run(), name="xo web: offers")
        joins = asyncio.create_task(self.offer_posts.run(), name="xo web: offers' joins")
        try:
            yield
        finally:
            for running in (task, ratings, joins):
                running.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await running
            await self.offer_posts.close()  # withdrawn through the feed's session, closed next
            offers.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await offers
            await asyncio.to_thread(self.accepts.close)
            await self.computer.close()
            await self.reveals.close()
            await asyncio.to_thread(self.tournaments.close)
            await self.matches.close()


async def read_json(request: web.Request) -> object:
    if request.content_type != JSON_TYPE:
        raise ApiError(415, errors.WRONG_CONTENT_TYPE, "Wrong Content Type", f"send {JSON_TYPE}")
    try:
        return json.loads(await request.read())
    except (ValueError, UnicodeDecodeError):
        raise bad_request("the body is not JSON") from None


def json_response(document: object, status: int = 200) -> web.Response:
    return web.Response(
        text=json.dumps(document), status=status, content_type=JSON_TYPE, headers={"Cache-Control": "no-store"}
    )


HTTP_ERRORS: Final = {
    404: (errors.NOT_FOUND, "Not Found", "there is nothing at this address"),
    405: (errors.METHOD_NOT_ALLOWED, "Method Not Allowed", "this address does not take that method"),
    413: (errors.TOO_LARGE, "Request Too Large", f"a request body may have at most {MAX_BODY_BYTES} bytes"),
}


@web.middleware
async def error_bodies(request: web.Request, handler: Callable[[web.Request], Any]) -> web.StreamResponse:
    """Every failure as a Sawtooth-style error body: ours, aiohttp's (404, 405, 413) and bugs (500)."""
    try:
        return await handler(request)
    except ApiError as error:
        return error.response()
    except web.HTTPException as error:
        if error.status < 400:
            raise
        code, title, message = HTTP_ERRORS.get(error.status, (errors.BAD_REQUEST, error.reason, error.text or ""))
        return errors.error_response(error.status, code, title, message)
    except asyncio.CancelledError:
        raise
    except Exception as error:  # a bug: its traceback once per route per interval, since a client can repeat it
        route = request.match_info.route.resource.canonical if request.match_info.route.resource else "?"
        request.app[LOG_LIMITER].log(
            LOG, ("internal error", request.method, route), logging.ERROR, "internal error serving %s %s",
            request.method, request.path, exc_info=error,
        )  # fmt: skip
        return errors.error_response(500, errors.INTERNAL, "Internal Error", "the server failed; see its output")


def build_app(settings: Settings) -> web.Application:
    """The application for ``settings``; the follower starts with it and stops with it."""
    server = Server(settings)
    guard = Guard(settings.port, settings.token)
    app = web.Application(middlewares=[error_bodies, guard.middleware], client_max_size=MAX_BODY_BYTES)
    app.on_response_prepare.append(add_security_headers)
    app.router.add_get("/", server.page.index)
    app.router.add_get("/static/{path:.+}", server.page.static)
    app.router.add_get("/api/session", server.session)
    app.router.add_get("/api/events", server.events.handle)
    app.router.add_get("/api/history", server.history)
    app.router.add_get("/api/chain/transactions", server.chain_transactions)
    app.router.add_get("/api/chain/transaction", server.chain_transaction)
    app.router.add_get("/api/ratings", server.ratings)
    app.router.add_post("/api/moves", server.move)
    app.router.add_post("/api/rps", server.rps_op)
    app.router.add_post("/api/computer", server.start_computer)
    app.router.add_post("/api/computer/stop", server.stop_computer)
    app.router.add_get("/api/chips", server.chips)
    app.router.add_post("/api/chips/open", server.chips_open)
    app.router.add_post("/api/chips/join", server.chips_join)
    app.router.add_post("/api/chips/play", server.chips_play)
    app.router.add_post("/api/chips/move", server.chips_move)
    app.router.add_post("/api/chips/challenge", server.chips_challenge)
    app.router.add_post("/api/chips/finalize", server.chips_finalize)
    app.router.add_get("/api/chips/offers", server.chips_offers)
    app.router.add_post("/api/chips/offer", server.chips_offer)
    app.router.add_post("/api/chips/withdraw", server.chips_withdraw)
    app.router.add_post("/api/chips/accept", server.chips_accept)
    app.router.add_get("/api/tournaments", server.tournaments_view)
    app.router.add_post("/api/tournaments/join", server.tournaments_join)
    app.router.add_post("/api/tournaments/play", server.tournaments_play)

    async def follow(_app: web.Application) -> AsyncIterator[None]:
        async with server.following():
            yield

    async def end_streams(_app: web.Application) -> None:
        server.fanout.close()

    app.cleanup_ctx.append(follow)
    app.on_shutdown.append(end_streams)
    app[SERVER] = server
    app[LOG_LIMITER] = LogLimiter()
    return app


SERVER: Final = web.AppKey("server", Server)
LOG_LIMITER: Final = web.AppKey("log_limiter", LogLimiter)
"""What keeps what clients can make the HTTP layer log (malformed requests, failed accepts) from flooding stderr."""


def make_runner(app: web.Application) -> web.AppRunner:
    """The runner for ``app``: no access log, signals left to the command, handlers cancelled on disconnect.

    Cancelling the handler of a page that went away ends its event stream at once
    (otherwise only at its next write), so a page reloaded again and again never
    holds more than its one place; a move on its way goes on regardless (``Server._play``).
    A malformed request is the client's mistake: one INFO line, rate-limited
    (:class:`xo_core.server_logs.RequestLogger`), never aiohttp's ERROR and traceback.
    """
    return web.AppRunner(
        app,
        access_log=None,
        handle_signals=False,
        handler_cancellation=True,
        shutdown_timeout=SHUTDOWN_SECONDS,
        logger=RequestLogger(logging.getLogger("aiohttp.server"), app[LOG_LIMITER]),
    )
