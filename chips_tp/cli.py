"""``chips-tp``: the chips (accounts and state channels) processor, run beside a Sawtooth validator or xo-devnet.

Everything but the family is the shared processor command (:mod:`tp_runtime.command`):
flags, settings (``CHIPS_TP_CONNECT``, ``chips.toml``), logging, ready file, exit codes.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from tp_runtime.command import ProcessorCommand, run

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tp_runtime.handlers import Handler


def _handlers() -> Sequence[Handler]:
    from chips_tp.handler import ChipsTransactionHandler  # noqa: PLC0415 (keeps --help and --version instant)

    return [ChipsTransactionHandler()]


COMMAND = ProcessorCommand(
    prog="chips-tp",
    description="Run the chips (accounts and state channels) transaction processor for a Sawtooth validator.",
    config_name="chips.toml",
    env_prefix="CHIPS_TP",
    logger="chips_tp",
    handlers=_handlers,
)


def main(argv: list[str] | None = None) -> int:
    """Run ``chips-tp`` until stopped and return its exit status."""
    return run(COMMAND, argv)


if __name__ == "__main__":
    sys.exit(main())
