"""What xo-devnet tells its user once it is ready: for people (the banner) and for scripts (the ready file)."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from chips_client.faucet import PER_KEY_PER_HOUR
from xo_core import __version__
from xo_core.keyfiles import DEFAULT_KEY_DIR
from xo_devnet.families import Family, describe_families
from xo_devnet.key_chips import KeyChips
from xo_devnet.player_keys import PlayerKey

DEFAULT_REST_URL = "http://127.0.0.1:8008"


@dataclass(frozen=True)
class ProcessorStatus:
    """One processor sidecar, as xo-devnet announces it."""

    name: str
    pid: int | None
    families: tuple[Family, ...]
    registered: bool
    """Whether every family it serves had registered with the ledger when xo-devnet became ready."""
    metrics: str | None = None
    """Where it serves Prometheus metrics, in words (xo_devnet.processor_metrics); None: nowhere."""


@dataclass(frozen=True)
class ReadyInfo:
    """Where everything is, once the ledger, the REST API and the processors are up."""

    rest_url: str
    component_endpoint: str
    data_dir: Path | None
    processors: tuple[ProcessorStatus, ...]
    """The sidecars xo-devnet runs; none with --no-tp."""
    families: tuple[Family, ...]
    """The transaction families whose batches the ledger accepts."""
    key_dir: Path
    keys: tuple[PlayerKey, ...]
    example_game: str = "game1"
    """A name no game on the chain has yet, for the example commands."""
    broker_url: str | None = None
    """The embedded MQTT broker players exchange off-chain messages through; None with --no-broker."""
    broker_pid: int | None = None
    """The process the embedded MQTT broker runs in (``xo_devnet.broker_process``); None with --no-broker."""
    chips: Mapping[str, KeyChips] = field(default_factory=dict)
    """Each key's chips on the chain (by public key), when the ledger takes chips."""


def banner(info: ReadyInfo) -> str:
    data_dir = info.data_dir if info.data_dir is not None else "(ephemeral: nothing is kept)"
    lines = [
        f"xo-devnet {__version__} is ready",
        f"  REST API               {info.rest_url}",
        f"  metrics, health        {info.rest_url}/metrics (Prometheus), {info.rest_url}/health",
        f"  component endpoint     {info.component_endpoint}",
        f"  MQTT broker            {_broker(info)}",
        f"  data dir               {data_dir}",
        *_processor_lines(info),
        "  BlockInfo              built into the ledger: it opens every block",
        f"  families accepted      {describe_families(info.families)}",
        f"  keys in {info.key_dir}:",
        *_key_lines(info),
    ]
    flags = _xo_flags(info)
    lines += _faucet_lines(info, flags)
    game = info.example_game
    lines += [
        "Play in another terminal:",
        f"  xo create {game} --username alice --wait{flags}",
        f"  xo take {game} 5 --username alice --wait{flags}",
        f"  xo take {game} 1 --username bob --wait{flags}",
        f"  xo show {game}{flags}",
        "Stop with Ctrl-C.",
    ]
    return "\n".join(lines)


def _broker(info: ReadyInfo) -> str:
    if info.broker_url is None:
        return "none (--no-broker)"
    return info.broker_url if info.broker_pid is None else f"{info.broker_url}, pid {info.broker_pid}"


def _key_lines(info: ReadyInfo) -> list[str]:
    """One line per key: its name, public key, and its chips when the chain keeps any (Anvil's funded accounts)."""
    width = max((len(key.name) for key in info.keys), default=0)
    lines = []
    for key in info.keys:
        if key.public_key is None:
            lines.append(f"    {key.name:<{width}} unusable: {key.problem}")
            continue
        chips = info.chips.get(key.public_key)
        held = f", {chips.words()}" if chips is not None else ""
        lines.append(f"    {key.name:<{width}} {key.public_key}{' (new)' if key.created else ''}{held}")
    return lines


def _faucet_lines(info: ReadyInfo, flags: str) -> list[str]:
    """How a key made after the banner gets chips (it holds none), when the ledger takes chips: the faucet."""
    if not any(family == "chips" for family, _version in info.families):
        return []
    return [f"  chips for a new key    chips faucet --username NAME{flags}: up to {PER_KEY_PER_HOUR:,} a key an hour"]


def _xo_flags(info: ReadyInfo) -> str:
    """The flags the example ``xo`` commands need to reach this devnet and its keys, shell-quoted.

    ``xo`` defaults to the same URL and key dir as xo-devnet; whichever differs must be
    passed, or the printed commands talk to another node or miss alice's and bob's keys.
    """
    flags = ""
    if info.rest_url != DEFAULT_REST_URL:
        flags += f" --url {shlex.quote(info.rest_url)}"
    if info.key_dir != DEFAULT_KEY_DIR.expanduser():
        flags += f" --key-dir {shlex.quote(str(info.key_dir))}"
    return flags


def ready_document(info: ReadyInfo) -> dict[str, object]:
    return {
        "rest_url": info.rest_url,
        "component_endpoint": info.component_endpoint,
        "broker_url": info.broker_url,
        "broker_pid": info.broker_pid,
        "data_dir": str(info.data_dir) if info.data_dir is not None else None,
        "pid": os.getpid(),
        "processors": [
            {
                "command": processor.name,
                "pid": processor.pid,
                "families": [f"{family}:{version}" for family, version in processor.families],
                "registered": processor.registered,
                "metrics": processor.metrics,
            }
            for processor in info.processors
        ],
        "families": [f"{family}:{version}" for family, version in info.families],
        "key_dir": str(info.key_dir),
        "keys": {key.name: key.public_key for key in info.keys},
        "chips": {
            key.name: {"balance": chips.balance, "issuer": chips.issuer}
            for key in info.keys
            if key.public_key is not None and (chips := info.chips.get(key.public_key)) is not None
        },
    }


def write_ready_file(path: Path, info: ReadyInfo) -> None:
    """Write atomically: a reader polling for the file never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(ready_document(info), indent=2) + "\n", encoding="utf-8")
    partial.replace(path)


def remove_ready_file(path: Path) -> None:
    """Remove the ready file on stop, but only while it is still ours (it holds this process's pid).

    Another devnet started with the same ``--ready-file`` may have replaced it since;
    removing that one would tell its scripts it has stopped when it has not.
    """
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(document, dict) and document.get("pid") == os.getpid():
        path.unlink(missing_ok=True)


def _processor_lines(info: ReadyInfo) -> list[str]:
    label = "  transaction processors "
    if not info.processors:
        endpoint = info.component_endpoint
        return [
            f"{label}none (--no-tp): connect your own, e.g. xo-tp -C {endpoint}, rps-tp -C {endpoint} and"
            f" chips-tp -C {endpoint}"
        ]
    lines = []
    for processor in info.processors:
        state = "registered" if processor.registered else "not registered yet: batches wait for it"
        metrics = f", metrics {processor.metrics}" if processor.metrics else ""
        lines.append(
            f"{label}{processor.name} ({describe_families(processor.families)}), pid {processor.pid}, {state}{metrics}"
        )
        label = " " * len(label)
    return lines
