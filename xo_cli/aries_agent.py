"""``xo aries agent``: an ACA-Py agent with the ``xo_aries`` plugin, for one player, on loopback.

ACA-Py runs as ``sys.executable -m acapy_agent start`` -- the Python that runs ``xo``, never an
``aca-py`` found on PATH -- with the defaults a player wants: an askar wallet in the player's
data directory (``$XDG_DATA_HOME/xo-aries/LABEL``, its key kept beside it, mode 0600), no Indy
ledger, HTTP in and out, invitations and connection requests accepted on their own (so any
controller connects it with ACA-Py's standard out-of-band routes), and the admin API on a
loopback address only, guarded by ``X-API-Key`` when ``--admin-api-key`` is given (without one
it runs in ACA-Py's insecure mode, and says so loudly). Once the admin API answers, a reusable
out-of-band invitation is created and printed; the agent then runs until Ctrl-C or SIGTERM.

ACA-Py needs Python 3.12 or newer: elsewhere this command says so in one line and exits 3.
"""

from __future__ import annotations

import argparse
import importlib.util
import ipaddress
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from client_core.errors import INTERRUPTED, TERMINATED, CommandError, InvalidInput, TerminateRequest, Unavailable
from client_core.runner import sigterm_interrupts, warn
from xo_cli.aries_admin import AdminClient

#: The module ACA-Py runs as (``python -m acapy_agent``), and the plugin this project adds to it.
ACAPY_MODULE: Final = "acapy_agent"
PLUGIN: Final = "xo_aries"
#: How to get ACA-Py from a clone (xo is not on PyPI), as docs/aries.md prints it: a venv of Python 3.12+.
ARIES_VENV: Final = "python3.12 -m venv .venv-aries"
ARIES_INSTALL: Final = "pip install -e '.[aries]'"
HANDSHAKE: Final = "https://didcomm.org/didexchange/1.1"
LABEL_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", re.ASCII)
#: How long the admin API may take to answer after ACA-Py starts (it provisions the wallet first).
READY_WAIT: Final = 90.0
POLL: Final = 0.2
#: How long ACA-Py gets to stop after SIGTERM before it is killed.
STOP_WAIT: Final = 15.0
LEVELS: Final = ("perfect", "heuristic", "random")


class AcaPyMissing(Unavailable):
    """ACA-Py is not installed for this Python (it needs 3.12 or newer); exit 3."""


@dataclass(frozen=True)
class Address:
    """A host and a port, as ``--inbound`` and ``--admin`` give them."""

    host: str
    port: int

    def url(self) -> str:
        """``http://host:port``, brackets round an IPv6 host."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


def address(text: str) -> Address:
    """``HOST:PORT`` as argparse reads it."""
    host, _, port = text.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT, e.g. 127.0.0.1:8020")
    return Address(host, int(port))


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (or ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def acapy_available() -> bool:
    """Whether this Python can run ACA-Py."""
    return importlib.util.find_spec(ACAPY_MODULE) is not None


def require_acapy(command: str) -> None:
    """Refuse ``command`` in one line where ACA-Py cannot run."""
    if not acapy_available():
        version = ".".join(map(str, sys.version_info[:2]))
        raise AcaPyMissing(
            f"{command} needs ACA-Py, which is not installed for this Python ({version}): it needs Python 3.12 or "
            f"newer; in your clone of xo, make a venv with one ({ARIES_VENV}) and run {ARIES_INSTALL} in it "
            f"(docs/aries.md tells how to get Python 3.12)"
        )


def default_data_dir(label: str) -> Path:
    """``$XDG_DATA_HOME/xo-aries/LABEL``, i.e. ``~/.local/share/xo-aries/LABEL`` on most systems."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join("~", ".local", "share")
    return Path(base, "xo-aries", label).expanduser()


def wallet_key(data_dir: Path) -> str:
    """The wallet's key, made once and kept in ``DATA_DIR/wallet.key`` (0600) so the wallet opens next time."""
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = data_dir / "wallet.key"
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="ascii").strip()
    key = secrets.token_hex(32)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(key + "\n")
    return key


@dataclass(frozen=True)
class AgentFlags:
    """What ``xo aries agent``'s command line asks for, resolved once at its edge."""

    label: str
    inbound: Address
    admin: Address
    endpoint: str | None
    admin_api_key: str | None
    webhook_urls: tuple[str, ...]
    auto_play: str | None
    anchor_url: str | None
    username: str | None
    key_dir: str | None
    data_dir: Path | None
    verbose: bool

    @classmethod
    def of(cls, args: argparse.Namespace) -> AgentFlags:
        """From the parsed command line, flag for flag."""
        return cls(
            args.label, args.inbound, args.admin, args.endpoint, args.admin_api_key, tuple(args.webhook_url or ()),
            args.auto_play, args.anchor_url, args.username, args.key_dir, args.data_dir, bool(args.verbose),
        )  # fmt: skip


def plugin_options(flags: AgentFlags) -> list[str]:
    """The plugin's settings as ACA-Py ``-o`` options."""
    settings: dict[str, str | None] = {}
    if flags.auto_play:
        settings["auto_play"] = flags.auto_play
    if flags.anchor_url:
        settings |= {"anchor_url": flags.anchor_url, "username": flags.username}
        if flags.key_dir:
            settings["key_dir"] = str(Path(flags.key_dir).expanduser())
    # ACA-Py reads each VALUE as YAML: JSON strings stay strings (a username "yes" is not a boolean)
    return [item for key, value in settings.items() for item in ("-o", f"{PLUGIN}.{key}={json.dumps(value)}")]


def acapy_command(flags: AgentFlags) -> list[str]:
    """The command line that starts ACA-Py for ``flags`` (pure: the tests read it); no secret is on it."""
    inbound, admin = flags.inbound, flags.admin
    command = [
        sys.executable, "-m", ACAPY_MODULE, "start",
        "--label", flags.label,
        "--inbound-transport", "http", inbound.host, str(inbound.port),
        "--outbound-transport", "http",
        "--endpoint", flags.endpoint or inbound.url(),
        "--admin", admin.host, str(admin.port),
        "--wallet-type", "askar", "--wallet-name", "wallet", "--auto-provision",
        "--no-ledger",
        "--auto-accept-invites", "--auto-accept-requests", "--auto-ping-connection",
        "--plugin", PLUGIN,
        "--log-level", "info" if flags.verbose else "warning",
    ]  # fmt: skip
    if not flags.admin_api_key:
        command.append("--admin-insecure-mode")
    for url in flags.webhook_urls:
        command += ["--webhook-url", url]
    return command + plugin_options(flags)


def acapy_environment(flags: AgentFlags, key: str, data_dir: Path) -> dict[str, str]:
    """ACA-Py's environment: the wallet key and the admin API key go here, not on its command line,
    where any local user could read them (``ps``, ``/proc/PID/cmdline``)."""
    environment = dict(os.environ, ACAPY_HOME=str(data_dir), ACAPY_WALLET_KEY=key,
                       PYTHONWARNINGS="ignore::DeprecationWarning")  # fmt: skip
    environment.pop("ACAPY_ADMIN_API_KEY", None)  # the key is --admin-api-key's, or none (insecure mode, said loudly)
    if flags.admin_api_key:
        environment["ACAPY_ADMIN_API_KEY"] = flags.admin_api_key
    return environment


def check_arguments(flags: AgentFlags) -> None:
    """What argparse cannot check alone."""
    if not LABEL_PATTERN.fullmatch(flags.label):
        raise InvalidInput(f"--label {flags.label!r}: use 1 to 64 letters, digits, '.', '_' or '-'")
    if not is_loopback(flags.admin.host):
        raise InvalidInput(f"--admin {flags.admin.host}: the admin API is bound to a loopback address only")
    if flags.anchor_url and not flags.username:
        raise InvalidInput("--anchor-url needs --username, the key that signs this agent's moves on the ledger")


def require_free(flag: str, where: Address) -> None:
    """``where`` must be free to listen on: ACA-Py, failing to bind, logs it and hangs instead of exiting.

    The probe allows what ACA-Py's web server allows (``SO_REUSEADDR``), so only a socket bound
    there now counts; an agent just stopped on that port may be started on it again at once.
    """
    family = socket.AF_INET6 if ":" in where.host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((where.host, where.port))
        except OSError as failed:
            raise InvalidInput(f"{flag} {where.host}:{where.port}: cannot listen there ({failed.strerror}); "
                               "is another agent using it?") from None  # fmt: skip


def agent(args: argparse.Namespace) -> int:
    """Start the agent, print its invitation, and run until interrupted."""
    flags = AgentFlags.of(args)
    check_arguments(flags)
    require_acapy("xo aries agent")
    require_free("--inbound", flags.inbound)
    require_free("--admin", flags.admin)
    data_dir = (flags.data_dir or default_data_dir(flags.label)).expanduser()
    command = acapy_command(flags)
    environment = acapy_environment(flags, wallet_key(data_dir), data_dir)
    if not flags.admin_api_key:
        warn("xo", f"the admin API at {flags.admin.url()} has NO API KEY: any local process can control this agent; "
             "give --admin-api-key KEY to guard it")  # fmt: skip
    with sigterm_interrupts():
        process = subprocess.Popen(command, env=environment, stdout=sys.stderr, start_new_session=True)
        try:
            client = AdminClient(flags.admin.url(), flags.admin_api_key)
            wait_ready(client, process)
            require_plugin(client)
            print_invitation(client, flags.label)
            return process.wait()
        except TerminateRequest:
            stop(process)
            return TERMINATED
        except KeyboardInterrupt:
            stop(process)
            return INTERRUPTED
        except CommandError:
            stop(process)
            raise


def wait_ready(client: AdminClient, process: subprocess.Popen[bytes]) -> None:
    """Until the admin API says the agent is ready; a failure if ACA-Py ends or takes too long."""
    deadline = time.monotonic() + READY_WAIT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise Unavailable(f"ACA-Py ended with status {process.returncode} before it was ready (its log is above)")
        try:
            if client.get("/status/ready").get("ready"):
                return
        except CommandError:
            pass
        time.sleep(POLL)
    raise Unavailable(f"ACA-Py's admin API at {client.url} did not answer within {READY_WAIT:.0f} s")


def require_plugin(client: AdminClient) -> None:
    """ACA-Py only logs a plugin it cannot load and runs on without it: here that is a failure."""
    loaded = client.get("/plugins").get("result") or []
    if PLUGIN not in loaded:
        raise Unavailable(f"ACA-Py did not load the {PLUGIN} plugin (is xo installed for {sys.executable}?)")


def print_invitation(client: AdminClient, label: str) -> None:
    """A reusable out-of-band invitation to this agent, on stdout, for ``xo aries connect``."""
    created = client.post(
        "/out-of-band/create-invitation", {"handshake_protocols": [HANDSHAKE], "alias": label}, {"multi_use": "true"}
    )
    print(f"{label} is ready; admin API {client.url}. Invitation (for xo aries connect):", flush=True)
    print(created["invitation_url"], flush=True)


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to ACA-Py, then SIGKILL if it has not stopped within :data:`STOP_WAIT`."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(STOP_WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
