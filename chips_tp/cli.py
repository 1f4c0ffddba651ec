"""``chips-tp``: the chips (accounts and state channels) transaction processor, beside a Sawtooth validator.

Everything but the family is the shared processor command (:func:`tp_runtime.command.family_command`):
flags, settings (``CHIPS_TP_CONNECT``, ``chips.toml``), logging, ready file, metrics, exit codes.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from tp_runtime.command import family_command

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tp_runtime.handlers import Handler


def _handlers() -> Sequence[Handler]:
    from chips_tp.handler import ChipsTransactionHandler  # noqa: PLC0415 (keeps --help and --version instant)

    return [ChipsTransactionHandler()]


COMMAND = family_command("chips", "chips (accounts and state channels)", _handlers)
main = COMMAND.main

if __name__ == "__main__":
    sys.exit(main())
