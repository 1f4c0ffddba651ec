"""``xo-tp``: the XO (tic-tac-toe) transaction processor, run beside a Sawtooth validator (or xo-devnet).

Everything but the family is the shared processor command (:func:`tp_runtime.command.family_command`):
flags, settings (``XO_TP_CONNECT``, ``xo.toml``), logging, ready file, metrics, exit codes.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from tp_runtime.command import family_command

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tp_runtime.handlers import Handler


def _handlers() -> Sequence[Handler]:
    from xo_tp.handler import XoTransactionHandler  # noqa: PLC0415 (keeps --help and --version instant)

    return [XoTransactionHandler()]


COMMAND = family_command("xo", "XO (tic-tac-toe)", _handlers)
main = COMMAND.main

if __name__ == "__main__":
    sys.exit(main())
