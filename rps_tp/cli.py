"""``rps-tp``: the rps (rock-paper-scissors) transaction processor, run beside a Sawtooth validator (or xo-devnet).

Everything but the family is the shared processor command (:func:`tp_runtime.command.family_command`):
flags, settings (``RPS_TP_CONNECT``, ``rps.toml``), logging, ready file, metrics, exit codes.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from tp_runtime.command import family_command

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tp_runtime.handlers import Handler


def _handlers() -> Sequence[Handler]:
    from rps_tp.handler import RpsTransactionHandler  # noqa: PLC0415 (keeps --help and --version instant)

    return [RpsTransactionHandler()]


COMMAND = family_command("rps", "rps (rock-paper-scissors)", _handlers)
main = COMMAND.main

if __name__ == "__main__":
    sys.exit(main())
