"""Where a ``*-tp`` command finds its settings: flags, then ``<PREFIX>_CONNECT``, then its TOML file, then defaults.

``--metrics`` follows the same order, with ``<PREFIX>_METRICS``; ``--max-occupancy`` has no variable.

The file follows the Sawtooth processors' convention, one per family:
``$SAWTOOTH_HOME/etc/<family>.toml`` when ``SAWTOOTH_HOME`` is set,
``/etc/sawtooth/<family>.toml`` otherwise; for ``xo-tp``, ``xo.toml``, e.g.::

    connect = "tcp://validator:4004"
    max_occupancy = 10
    metrics = "127.0.0.1:9400"   # serve Prometheus metrics there (off when absent)

A missing default file is fine; a file named with ``--config`` must exist. Unknown
keys are refused, since a misspelt key would otherwise be silently ignored.
"""

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq

DEFAULT_CONNECT = "tcp://127.0.0.1:4004"
DEFAULT_MAX_OCCUPANCY = 10
MAX_MAX_OCCUPANCY = 1024  # a greenlet and a send-queue allowance each: far beyond this the machine is the limit
KNOWN_KEYS = ("connect", "max_occupancy", "metrics")


class ConfigError(ValueError):
    """A setting that cannot be used; the message names where it came from."""


@dataclass(frozen=True)
class MetricsAddress:
    """The host and TCP port the metrics endpoint binds (port 0: a free one, logged once bound)."""

    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


@dataclass(frozen=True)
class Settings:
    """What ``xo-tp`` runs with, each value checked against where it came from."""

    connect: str
    max_occupancy: int
    metrics: MetricsAddress | None = None
    """Where to serve Prometheus metrics; None: nowhere (the default)."""


def default_config_path(config_name: str, environ: Mapping[str, str]) -> Path:
    """Where a Sawtooth installation keeps the file ``config_name`` (e.g. ``xo.toml``)."""
    home = environ.get("SAWTOOTH_HOME")
    base = Path(home) / "etc" if home else Path("/etc/sawtooth")
    return base / config_name


def load_config_file(path: Path, *, required: bool) -> dict[str, Any]:
    """The settings in ``path``; ``{}`` if it is absent and not ``required``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if required:
            raise ConfigError(f"config file {path} does not exist") from None
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"config file {path} cannot be read: {error}") from None
    try:
        values = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config file {path} is not valid TOML: {error}") from None
    unknown = sorted(set(values) - set(KNOWN_KEYS))
    if unknown:
        raise ConfigError(f"config file {path}: unknown key(s) {', '.join(unknown)} (known: {', '.join(KNOWN_KEYS)})")
    return values


def check_url(url: object, source: str) -> str:
    """Accept ``tcp://host:port`` (or ``ipc://path``), the endpoints a validator's component socket binds.

    ZeroMQ has the last word: it refuses some hosts (``*``, a leading ``-``) that look fine.
    """
    problem = f"{source}: {url!r} is not a validator URL like tcp://127.0.0.1:4004"
    if not isinstance(url, str):
        raise ConfigError(problem)
    scheme, separator, rest = url.partition("://")
    if not (scheme in ("tcp", "ipc") and separator and rest):
        raise ConfigError(problem)
    if scheme == "tcp":
        host, colon, port = rest.rpartition(":")
        if not colon or not host or any(char.isspace() or char == "/" for char in host):
            raise ConfigError(problem)
        if not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
            raise ConfigError(f"{source}: {url!r} has no valid port (1-65535)")
    if not _zmq_accepts(url):
        raise ConfigError(problem)
    return url


def _zmq_accepts(url: str) -> bool:
    """Whether ZeroMQ would connect to ``url`` (it only checks the form: nothing is sent)."""
    context = zmq.Context()
    socket = context.socket(zmq.DEALER)
    try:
        socket.connect(url)
    except zmq.ZMQError:
        return False
    finally:
        socket.close(linger=0)
        context.term()
    return True


def check_max_occupancy(value: object, source: str) -> int:
    """How many transactions may run at once: a whole number from 1 to :data:`MAX_MAX_OCCUPANCY`."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_MAX_OCCUPANCY:
        raise ConfigError(
            f"{source}: max occupancy must be a whole number from 1 to {MAX_MAX_OCCUPANCY}, got {value!r}"
        )
    return value


def check_metrics_address(value: object, source: str) -> MetricsAddress:
    """Accept ``HOST:PORT`` (``[::1]:9400`` for IPv6): the host is required, so binding every interface is a choice."""
    problem = f"{source}: {value!r} is not a metrics address like 127.0.0.1:9400"
    if not isinstance(value, str):
        raise ConfigError(problem)
    host, colon, port = value.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not colon or not host or any(char.isspace() or char in "/[]" for char in host):
        raise ConfigError(problem)
    if not (port.isascii() and port.isdigit() and int(port) <= 65535):
        raise ConfigError(f"{source}: {value!r} has no valid port (0-65535; 0 picks a free one)")
    return MetricsAddress(host, int(port))


def resolve(
    *,
    connect_env: str,
    config_name: str,
    connect_flag: str | None,
    max_occupancy_flag: int | None,
    config_flag: Path | None,
    metrics_env: str | None = None,
    metrics_flag: str | None = None,
    environ: Mapping[str, str] = os.environ,
) -> Settings:
    """Combine every source, most specific first, checking each value against where it came from.

    ``connect_env``, ``metrics_env`` and ``config_name`` are the command's own (``XO_TP_CONNECT``,
    ``XO_TP_METRICS``, ``xo.toml``), so two processors on one machine never read each other's settings.
    """
    path = config_flag if config_flag is not None else default_config_path(config_name, environ)
    from_file = load_config_file(path, required=config_flag is not None)
    if connect_flag is not None:
        connect = check_url(connect_flag, "--connect")
    elif environ.get(connect_env):
        connect = check_url(environ[connect_env], connect_env)
    elif "connect" in from_file:
        connect = check_url(from_file["connect"], f"{path} connect")
    else:
        connect = DEFAULT_CONNECT
    if max_occupancy_flag is not None:
        max_occupancy = check_max_occupancy(max_occupancy_flag, "--max-occupancy")
    elif "max_occupancy" in from_file:
        max_occupancy = check_max_occupancy(from_file["max_occupancy"], f"{path} max_occupancy")
    else:
        max_occupancy = DEFAULT_MAX_OCCUPANCY
    metrics = None
    if metrics_flag is not None:
        metrics = check_metrics_address(metrics_flag, "--metrics")
    elif metrics_env is not None and environ.get(metrics_env):
        metrics = check_metrics_address(environ[metrics_env], metrics_env)
    elif "metrics" in from_file:
        metrics = check_metrics_address(from_file["metrics"], f"{path} metrics")
    return Settings(connect=connect, max_occupancy=max_occupancy, metrics=metrics)
