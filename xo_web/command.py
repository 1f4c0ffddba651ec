"""``xo web``: check where to listen, make sure the REST API answers, then serve the page until Ctrl-C.

Everything that can be checked before serving is checked first, each failure one
``xo: error:`` line: the address (a non-loopback one needs ``--allow-remote``, and
gets a warning even then), the REST API (exit 3 if it does not answer), the port
(in use: exit 1). Then the server runs until Ctrl-C or SIGTERM, which stop it
cleanly: the pages' streams end, moves on their way get a moment to finish, and
the command exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import signal
import socket
import webbrowser
from collections.abc import Callable, Iterator

from aiohttp import web as aiohttp_web

from client_core.caller import Caller
from client_core.errors import CommandError, InvalidInput, UsageError
from client_core.keys import private_key_names
from client_core.results_reader import cache_path
from client_core.runner import notice, warn
from xo_core.server_logs import install_accept_error_handler
from xo_core.text import printable, quoted
from xo_web.app import LOG_LIMITER, Settings, build_app, make_runner
from xo_web.security import new_token


def web(args: argparse.Namespace) -> int:
    """Serve the page for ``args`` until stopped; 0 once stopped by Ctrl-C or SIGTERM."""
    host, remote_warning = listen_address(args.bind, args.allow_remote)
    caller = Caller.of(args)
    key_dir = caller.who.key_dir
    try:
        default_key: str | None = caller.who.name()
    except InvalidInput:
        default_key = None
    with caller.where.rest_client() as client:
        client.head_block()  # an unreachable REST API is the usual one-line error (exit 3), before serving
        rest_url, auth, trace = client.base_url, client.auth, client.trace
    listener = bind(host, args.port)
    port = listener.getsockname()[1]
    if remote_warning:
        warn("xo", remote_warning.format(port=port))
    settings = Settings(
        rest_url, auth, key_dir, default_key, port, new_token(), trace, args.broker, ratings_cache=cache_path(rest_url)
    )
    address = page_address(host, port)
    keys = private_key_names(key_dir)

    def announce() -> None:
        """Said once the page is really served, so the address works by the time anyone reads it."""
        print(f"xo web is serving {address}", flush=True)
        print(f"  REST API  {printable(rest_url)}")
        listed = printable(", ".join(keys)) if keys else "none: make one with xo keygen"
        print(f"  keys      {printable(str(key_dir))} ({listed})")
        opening = " (opening it now)" if args.open else ""
        print(f"Open the address in a web browser{opening}. Stop with Ctrl-C.", flush=True)

    asyncio.run(serve(build_app(settings), listener, announce, address if args.open else None))
    print("xo web stopped", flush=True)
    return 0


def listen_address(text: str, allow_remote: bool) -> tuple[str, str | None]:
    """The IP address to bind for ``--bind``, and the warning to give for it (None on loopback).

    A non-loopback address exposes the page, and with it every key, to whoever can
    reach the machine: refused without ``--allow-remote``, warned about with it.
    """
    candidate = "127.0.0.1" if text == "localhost" else text.removeprefix("[").removesuffix("]")
    try:
        address = ipaddress.ip_address(candidate)
    except ValueError:
        raise UsageError(
            f"--bind {quoted(text)}: give an IP address, such as 127.0.0.1, or localhost"
        ) from None
    if address.is_loopback:
        return str(address), None
    if not allow_remote:
        raise UsageError(
            f"--bind {address} is not a loopback address: other machines could reach this server, load its page "
            "and play as any of your keys; to allow that on purpose, add --allow-remote"
        )
    return str(address), (
        f"serving on {address}, which other machines may reach: anyone who can open port {{port}} of this "
        "machine can play as any of your keys"
    )


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``; a port in use is the player's error (exit 1), said in one line."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(128)
    except OSError as error:
        listener.close()
        raise CommandError(
            f"cannot listen on {page_address(host, port)}: {error.strerror or error}; choose another --port"
        ) from None
    listener.setblocking(False)
    return listener


def page_address(host: str, port: int) -> str:
    """The page's address as a person types it: an unspecified bind address (0.0.0.0, ::) is reached on loopback."""
    address = ipaddress.ip_address(host)
    if address.is_unspecified:
        address = ipaddress.ip_address("::1" if address.version == 6 else "127.0.0.1")
    shown = f"[{address}]" if address.version == 6 else str(address)
    return f"http://{shown}:{port}/"


async def serve(
    app: aiohttp_web.Application, listener: socket.socket, announce: Callable[[], None], open_address: str | None
) -> None:
    """Serve ``app`` on ``listener`` until SIGINT or SIGTERM: ``announce()`` once serving, then open ``open_address``.

    The signals are caught before anything is served, so a stop that comes as soon as
    the address is announced is a clean stop too.
    """
    with stop_signals() as stop:
        runner = make_runner(app)
        await runner.setup()
        restore = install_accept_error_handler(asyncio.get_running_loop(), app[LOG_LIMITER])
        try:
            await aiohttp_web.SockSite(runner, listener).start()
            announce()
            if open_address is not None:
                await open_browser(open_address)
            await stop.wait()
        finally:
            await runner.cleanup()
            restore()


async def open_browser(address: str, opener: Callable[[str], bool] = webbrowser.open) -> None:
    """Open the page in the system's browser (``$BROWSER`` is honoured); say so if there is none to open."""
    if not await asyncio.to_thread(opener, address):
        notice("xo", f"no web browser could be opened here: open {address} yourself")


@contextlib.contextmanager
def stop_signals() -> Iterator[asyncio.Event]:
    """An event set at SIGINT (Ctrl-C) or SIGTERM, while within; the previous handling is back afterwards."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    signals = (signal.SIGINT, signal.SIGTERM)
    for signum in signals:
        loop.add_signal_handler(signum, stop.set)
    try:
        yield stop
    finally:
        for signum in signals:
            with contextlib.suppress(ValueError, RuntimeError):
                loop.remove_signal_handler(signum)
