"""What the end-to-end tests of ``xo watch`` and ``xo history`` need: moves on an xo-devnet, and ``xo`` running beside.

Moves are signed and submitted in-process with the devnet's own player keys (alice
and bob), each waited for until committed, so a test plays a whole game in a fraction
of a second. ``xo`` runs as the separate process a player would start; its lines are
read as they come, with a deadline on every wait.
"""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

from client_core.rest import RestClient
from client_core.submission import submit
from tests.processes import sigint_at_default
from xo_client.transactions import make_xo_transaction
from xo_core.keyfiles import load_signer

XO = str(Path(sys.executable).parent / "xo")
SECONDS = 15.0


class Table:
    """alice and bob, playing on the devnet at ``url`` with the keys in ``key_dir``."""

    def __init__(self, url: str, key_dir: Path) -> None:
        self.client = RestClient(url)
        self.signers = {name: load_signer(key_dir, name) for name in ("alice", "bob")}

    def key(self, who: str) -> str:
        return self.signers[who].public_key

    def move(self, who: str, name: str, action: str, space: int | None = None) -> None:
        """One move, committed when this returns."""
        signer = self.signers[who]
        batch_id = submit(self.client, signer, [make_xo_transaction(signer, name, action, space)])
        status = self.client.batch_status(batch_id, wait=int(SECONDS))
        assert status.status == "COMMITTED", (action, name, space, status)

    def takes(self, name: str, *spaces: int, first: str = "alice") -> None:
        """Alternate takes, ``first`` moving first."""
        players = [first, "bob" if first == "alice" else "alice"]
        for index, space in enumerate(spaces):
            self.move(players[index % 2], name, "take", space)


class Running:
    """``xo ARGS`` as a separate process, its stdout and stderr read line by line as they come.

    It runs in ``environment`` (else this process's). Its standard input is empty unless ``stdin=True``: then
    :meth:`send` writes lines to it and :meth:`close_input` ends it, as a script driving ``xo play`` through a
    pipe would.
    """

    def __init__(self, *argv: str, stdin: bool = False, environment: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [XO, *argv],
            env=environment,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            preexec_fn=sigint_at_default,  # noqa: PLW1509 - interrupt() is a Ctrl-C, whoever started the suite
        )
        self.stdout: queue.Queue[str | None] = queue.Queue()
        self.stderr: queue.Queue[str | None] = queue.Queue()
        for stream, lines in ((self.process.stdout, self.stdout), (self.process.stderr, self.stderr)):
            threading.Thread(target=_pump, args=(stream, lines), daemon=True).start()

    def send(self, *lines: str) -> None:
        assert self.process.stdin is not None, "started without stdin=True"
        self.process.stdin.write("".join(line + "\n" for line in lines))
        self.process.stdin.flush()

    def close_input(self) -> None:
        assert self.process.stdin is not None, "started without stdin=True"
        self.process.stdin.close()

    def until(self, predicate, stream: str = "stdout", limit: int = 200) -> list[str]:
        """Lines up to and including the first that ``predicate`` accepts (at most ``limit``, each in time)."""
        found: list[str] = []
        while not found or not predicate(found[-1]):
            assert len(found) < limit, f"no matching line among {found}"
            found += self.lines(1, stream)
        return found

    def lines(self, count: int, stream: str = "stdout") -> list[str]:
        """The next ``count`` lines (without their newline); fails if they do not come within the deadline."""
        source = self.stdout if stream == "stdout" else self.stderr
        found = []
        for _ in range(count):
            try:
                line = source.get(timeout=SECONDS)
            except queue.Empty:
                raise AssertionError(f"only {len(found)} of {count} lines within {SECONDS} s: {found}") from None
            assert line is not None, f"the stream ended after {found}"
            found.append(line.rstrip("\n"))
        return found

    def wait(self) -> int:
        return self.process.wait(SECONDS)

    def rest(self, stream: str = "stdout") -> list[str]:
        """What is left of a stream once the process has ended."""
        self.wait()
        source = self.stdout if stream == "stdout" else self.stderr
        found = []
        while (line := source.get(timeout=SECONDS)) is not None:
            found.append(line.rstrip("\n"))
        return found

    def interrupt(self, signum: int = signal.SIGINT) -> int:
        self.process.send_signal(signum)
        return self.wait()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(SECONDS)
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()


def _pump(stream, lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)
