"""``xo-tp``: the XO transaction processor, run beside a Sawtooth validator (or xo-devnet).

Everything but the family is the shared processor command (:mod:`tp_runtime.command`):
flags, settings (``XO_TP_CONNECT``, ``xo.toml``), logging, exit codes.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from tp_runtime.command import ProcessorCommand, run

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tp_runtime.handlers import Handler


def _handlers() -> Sequence[Handler]:
    from xo_tp.handler import XoTransactionHandler  # noqa: PLC0415 (keeps --help and --version instant)

    return [XoTransactionHandler()]


COMMAND = ProcessorCommand(
    prog="xo-tp",
    description="Run the XO (tic-tac-toe) transaction processor for a Sawtooth validator.",
    config_name="xo.toml",
    env_prefix="XO_TP",
    logger="xo_tp",
    handlers=_handlers,
)
READY_FILE_ENV = COMMAND.ready_file_env


def main(argv: list[str] | None = None) -> int:
    """Run ``xo-tp`` until stopped and return its exit status."""
    return run(COMMAND, argv)


if __name__ == "__main__":
    sys.exit(main())
