"""A command's process ends as soon as its work is done: the interpreter's last garbage collection is skipped.

When a process exits, CPython collects garbage once more while it tears its modules down. With
aiohttp, amqtt and protobuf loaded that alone takes 0.1-0.3 s, which the user of ``xo-devnet`` waits
through after "xo-devnet stopped" (and xo-devnet through again for each processor it stops). What
must reach a file is written and closed before then (the ledger's storage, key files and the
vault are closed where they are written; logging flushes its handlers at exit), so the objects
still alive at exit are left to the operating system instead.
"""

from __future__ import annotations

import atexit
import gc


def skip_final_collection() -> None:
    """Make this process's exit skip the last collection (what is alive then is frozen, not collected).

    Idempotent: called again (a test running a command in-process many times), it stays one exit handler."""
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
