"""Log lines that player-supplied text can neither forge nor use to garble the terminal that shows them.

Log messages quote game names, rejection reasons from processors and request
paths: text a player or a foreign processor chose. One newline in such a text
would forge a second log line, and one escape sequence would recolour the
operator's terminal. Every record's message goes through
:func:`xo_core.text.printable` here, once, whichever module logged it, so no log
call needs to remember. Tracebacks are left as they are: their text is the
program's own.
"""

from __future__ import annotations

import logging
from typing import TextIO

from xo_core.text import printable

LOG_FORMAT = "[%(asctime)s.%(msecs)03d %(levelname)-7s %(name)s] %(message)s"
LOG_DATE_FORMAT = "%Y-%m-%d %H:%M:%S"


class PrintableFormatter(logging.Formatter):
    """A formatter whose records' messages are always one line of printable text."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = printable(record.message, escape_backslashes=False)
        return super().formatMessage(record)


def configure(stream: TextIO, level: int) -> None:
    """Log to ``stream`` at ``level`` in the format every command of this project shares, escaped."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(PrintableFormatter(LOG_FORMAT, LOG_DATE_FORMAT))
    logging.basicConfig(handlers=[handler], level=level)
