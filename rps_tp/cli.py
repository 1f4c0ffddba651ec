"""``rps-tp``: the rps (rock-paper-scissors) transaction processor, run beside a Sawtooth validator (or xo-devnet).

Everything but the family is the shared processor command (:mod:`tp_runtime.command`):
flags, settings (``RPS_TP_CONNECT``, ``rps.toml``), logging, ready file, exit codes.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from tp_runtime.command import ProcessorCommand, run

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tp_runtime.handlers import Handler


def _handlers() -> Sequence[Handler]:
    from rps_tp.handler import RpsTransactionHandler  # noqa: PLC0415 (keeps --help and --version instant)

    return [RpsTransactionHandler()]


COMMAND = ProcessorCommand(
    prog="rps-tp",
    description="Run the rps (rock-paper-scissors) transaction processor for a Sawtooth validator.",
    config_name="rps.toml",
    env_prefix="RPS_TP",
    logger="rps_tp",
    handlers=_handlers,
)


def main(argv: list[str] | None = None) -> int:
    """Run ``rps-tp`` until stopped and return its exit status."""
    return run(COMMAND, argv)


if __name__ == "__main__":
    sys.exit(main())
