"""Reading an Aries Tic Tac Toe thread from a file, or from standard input for ``-``.

The file comes from another agent, so nothing about it is trusted: it is read up to
a bound, must be UTF-8 JSON, and whatever is wrong with it (missing, too big, not
JSON, nested deeper than the decoder goes) is one :class:`~client_core.errors.InvalidInput`
line naming the file, never a traceback. What the JSON *means* is
:func:`xo_client.aries.check_thread`'s business.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Final

from client_core.errors import InvalidInput
from xo_core.text import printable, quoted

STDIN: Final = "-"
#: The largest thread file read. A finished game is a dozen messages, a few kB; anything near this is not a game.
MAX_THREAD_BYTES: Final = 1024 * 1024
#: How much of a path an error message quotes.
SHOWN_PATH_LENGTH: Final = 200


def source_name(source: str) -> str:
    """The source as a prefix of output lines (``game.json[3]: ...``): the path, escaped, or ``stdin``."""
    return "stdin" if source == STDIN else printable(source)


def described(source: str) -> str:
    """The source as error messages name it: the path, quoted, or ``standard input``."""
    return "standard input" if source == STDIN else quoted(source, SHOWN_PATH_LENGTH)


def read_thread(source: str) -> object:
    """The JSON value in ``source`` (a path, or ``-`` for standard input), decoded; :class:`InvalidInput` if none."""
    label = described(source)
    data = _read_bytes(source, label)
    if len(data) > MAX_THREAD_BYTES:
        raise InvalidInput(f"{label} is larger than {MAX_THREAD_BYTES} bytes, far more than any thread of one game")
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark, as some editors write, is not part of the JSON
    except UnicodeDecodeError as error:
        raise InvalidInput(f"{label} is not UTF-8 text (byte {error.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidInput(f"{label} is not JSON: {error.msg} at line {error.lineno}, column {error.colno}") from None
    except RecursionError:
        raise InvalidInput(f"{label} nests its JSON too deeply to be a thread") from None


def _read_bytes(source: str, label: str) -> bytes:
    """Up to one byte more than the bound, so that a file over it is told apart from one exactly at it."""
    try:
        if source == STDIN:
            return sys.stdin.buffer.read(MAX_THREAD_BYTES + 1)
        with Path(source).open("rb") as handle:
            return handle.read(MAX_THREAD_BYTES + 1)
    except OSError as error:
        raise InvalidInput(f"cannot read {label}: {error.strerror or error}") from None
