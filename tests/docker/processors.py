"""The transaction processors the compose files run from our image (xo-tp, rps-tp), and the commands behind them."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from tests.docker.build_sources import console_scripts
from tests.docker.compose_files import NETWORKS, program, services

if TYPE_CHECKING:
    from tp_runtime.command import ProcessorCommand


def image_processors() -> list[str]:
    """The *-tp programs that services built from our Dockerfile run, in either network."""
    return sorted(
        {
            program(service)
            for network in NETWORKS
            for service in services(network).values()
            if "build" in service and program(service).endswith("-tp")
        }
    )


def processor_command(name: str) -> ProcessorCommand:
    """The shared processor command behind the *-tp program ``name`` (``rps-tp``: ``rps_tp.cli.COMMAND``), which
    names its settings (ready file, connect URL); setup.py must install it as ``name``.

    A missing module or console script fails.
    """
    module_name = f"{name.replace('-', '_')}.cli"
    assert console_scripts().get(name) == f"{module_name}:main", f"setup.py does not install {name}"
    command: ProcessorCommand = importlib.import_module(module_name).COMMAND
    return command
