"""xo-devnet's MQTT broker in a process of its own, so that players' messages and the ledger never wait on each other.

amqtt is pure Python: on xo-devnet's one event loop it shared the ledger's interpreter (and its GIL), and with a
thousand players the ledger's loop spent most of a core on the broker while messages took minutes. So xo-devnet
binds the broker's address itself (a port in use is a startup error, port 0's pick is known for the banner before
the broker runs, and amqtt is never imported into xo-devnet) and runs this module as a supervised child
(:class:`xo_devnet.sidecar.ProcessorSidecar`) that inherits the listening sockets and serves them until SIGTERM or
SIGINT. Clients that connect before the child accepts wait in the listen backlog (``BACKLOG``: a thousand players
may connect at once). A child that dies is restarted on the same sockets: its sessions are gone, and clients
reconnect to the same port and resend what was not answered.

    python -m xo_devnet.broker_process --fd 5 [-v|-vv]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import socket
import sys
from collections.abc import Sequence

from xo_core import logs
from xo_devnet.rest.listeners import bind_listeners
from xo_devnet.sidecar import ProcessorSidecar

MODULE = "xo_devnet.broker_process"
BACKLOG = 1024
"""Connections the kernel queues before the broker accepts them: a thousand players connecting at once, or while
the broker's process (re)starts, all wait."""

LOGGER = logging.getLogger(MODULE)  # run as __main__, it logs under its module's name all the same


def bind(host: str, port: int) -> list[socket.socket]:
    """The broker's listening sockets on ``host:port`` (0: a free port); OSError if they cannot be bound."""
    return bind_listeners(host, port, BACKLOG)


def broker_url(host: str, listeners: Sequence[socket.socket]) -> str:
    """The ``mqtt://`` URL clients connect to: ``host`` as given (an IPv6 one in brackets), at the port bound."""
    port = listeners[0].getsockname()[1]
    return f"mqtt://[{host}]:{port}" if ":" in host else f"mqtt://{host}:{port}"


def broker_sidecar(listeners: Sequence[socket.socket], verbosity: int) -> ProcessorSidecar:
    """The supervised child serving ``listeners`` (which xo-devnet keeps open), logging as xo-devnet's ``-v`` says."""
    fds = [listener.fileno() for listener in listeners]
    loudness = ["-" + "v" * verbosity] if verbosity > 0 else []
    command = [sys.executable, "-m", MODULE, *(f"--fd={fd}" for fd in fds), *loudness]
    return ProcessorSidecar(command, "the MQTT broker", pass_fds=fds)


def configure_logging(verbosity: int) -> None:
    """As xo-devnet logs (to the terminal both share): warnings, -v info, -vv debug with amqtt's every state change."""
    logs.configure(sys.stderr, logging.DEBUG if verbosity >= 2 else logging.INFO if verbosity == 1 else logging.WARNING)
    if verbosity < 2:
        for chatty in ("amqtt", "transitions"):  # the broker logs every connection and state change
            logging.getLogger(chatty).setLevel(logging.WARNING)


async def serve(listeners: Sequence[socket.socket]) -> None:
    """Run the broker on ``listeners`` until SIGTERM or SIGINT, then end its sessions and connections."""
    from xo_devnet.mqtt_broker import EmbeddedBroker  # noqa: PLC0415 - amqtt is imported in this process only

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signal_number, stop.set)
    host, port = listeners[0].getsockname()[:2]
    broker = EmbeddedBroker(host, port, listeners, BACKLOG)
    await broker.start()
    LOGGER.info("the MQTT broker serves %s", broker.url)
    try:
        await stop.wait()
    finally:
        await broker.stop()
        LOGGER.info("the MQTT broker stopped")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=MODULE, description=__doc__.splitlines()[0])
    parser.add_argument("--fd", type=int, action="append", required=True, help="an inherited listening socket")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging: -v info, -vv debug")
    args = parser.parse_args(argv)
    configure_logging(args.verbose)
    try:
        listeners = [socket.socket(fileno=fd) for fd in args.fd]
    except OSError as error:
        LOGGER.error("the MQTT broker has no listening socket: %s", error)
        return 1
    asyncio.run(serve(listeners))
    return 0


if __name__ == "__main__":
    sys.exit(main())
