"""Lines of input, read on a thread of their own, for a command that also waits on the chain (``xo play``).

The command's thread waits on one event queue; this reader puts each line typed (or
piped) into it as it comes, and ``None`` once the input ends (Ctrl-D on a
terminal, the end of a pipe or file). It reads the file descriptor with
``os.read``, not through ``sys.stdin``: a daemon thread blocked inside
``sys.stdin``'s buffered reader holds that reader's lock, and the interpreter
aborts at exit when it cannot take it ("could not acquire lock for <stdin> at
interpreter shutdown"). With ``os.read`` nothing is held, and a reader still
blocked when the command ends simply ends with the process.

A line is at most :data:`MAX_LINE_BYTES`: a pipe that never sends a newline is cut
into lines of that size instead of filling memory. Bytes that are not UTF-8 are
replaced (U+FFFD), never fatal: what a person typed is judged by the command.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

MAX_LINE_BYTES = 4096
READ_BYTES = 4096


class LineReader:
    """Reads ``fd`` on a daemon thread; ``deliver`` gets each line (without its line break), then ``None``."""

    def __init__(self, fd: int, deliver: Callable[[str | None], None]) -> None:
        self._fd = fd
        self._deliver = deliver
        self._thread = threading.Thread(target=self._run, name="xo-input", daemon=True)

    def start(self) -> LineReader:
        self._thread.start()
        return self

    def _run(self) -> None:
        pending = b""
        while True:
            try:
                chunk = os.read(self._fd, READ_BYTES)
            except OSError:  # EIO once the terminal is gone: the input has ended
                chunk = b""
            if not chunk:
                if pending:
                    self._deliver(decode(pending))
                self._deliver(None)
                return
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                self._deliver(decode(line))
            while len(pending) > MAX_LINE_BYTES:
                self._deliver(decode(pending[:MAX_LINE_BYTES]))
                pending = pending[MAX_LINE_BYTES:]


def decode(line: bytes) -> str:
    """One line as text: UTF-8 (anything else replaced), without a trailing carriage return."""
    return line.removesuffix(b"\r").decode("utf-8", errors="replace")
