"""Where the processors xo-devnet runs serve their Prometheus metrics, read as each processor reads it.

xo-devnet starts its processors without ``--metrics``: each serves metrics only where its environment
(``XO_TP_METRICS``, ``RPS_TP_METRICS``, ``CHIPS_TP_METRICS``, inherited from xo-devnet's) or its settings
file says (docs/metrics.md). The banner names that address, so that a user scrapes the processor that
does the work rather than starting a second one beside it, which the ledger would give nothing to.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from tp_runtime.command import family_command
from tp_runtime.config import ConfigError, resolve

WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "::1"}
"""A wildcard host is served on every interface: this machine reaches it on loopback."""


def metrics_address(processor: str, endpoint: str, environ: Mapping[str, str] = os.environ) -> str | None:
    """Where ``processor`` (``xo-tp``) connected to ``endpoint`` serves its metrics, in words; None: nowhere.

    The processor's own rule decides (:func:`tp_runtime.config.resolve`, over the same environment); a
    setting it refuses is named, since the processor then stops before it registers.
    """
    command = family_command(processor.removesuffix("-tp"), processor, tuple)
    try:
        settings = resolve(
            connect_env=command.connect_env,
            config_name=command.config_name,
            connect_flag=endpoint,
            max_occupancy_flag=None,
            config_flag=None,
            metrics_env=command.metrics_env,
            environ=environ,
        )
    except ConfigError as error:
        return f"none: {error}"
    if settings.metrics is None:
        return None
    host = WILDCARDS.get(settings.metrics.host, settings.metrics.host)
    shown = f"[{host}]" if ":" in host else host
    if settings.metrics.port == 0:
        return f"a free port of {shown} (port 0)"
    return f"http://{shown}:{settings.metrics.port}/metrics"
