"""Two players at an xo-devnet, each running ``rps`` as the separate process a person would start.

alice and bob use the keys xo-devnet made for them. ``start`` runs a command in the
background (a throw waits for the opponent), ``run`` waits for one; both bound every
wait. ``submit`` signs an op in-process, for what no honest ``rps`` would send (a
copied commitment, a reveal with someone else's salt).
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from client_core.rest import RestClient
from client_core.submission import submit
from rps_client.transactions import make_rps_transaction
from rps_client.vault import Vault
from rps_tp.family import game_address
from rps_tp.game import DEFAULT_SETTINGS, SETUP_PHASE, Game, Moment, Settings
from rps_tp.ops import Create, Join, Op, Ready
from rps_tp.state import decode_bucket
from tests.processes import sigint_at_default
from xo_core.keyfiles import load_signer

RPS = str(Path(sys.executable).parent / "rps")
SECONDS = 30.0


@dataclass(frozen=True)
class Done:
    code: int
    out: str
    err: str

    def lines(self) -> list[str]:
        return self.out.splitlines()


class Running:
    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process

    def done(self) -> Done:
        out, err = self.process.communicate(timeout=SECONDS)
        return Done(self.process.returncode, out, err)


class Table:
    """alice and bob playing rps on the devnet at ``url`` with the keys in ``key_dir``."""

    def __init__(self, url: str, key_dir: Path) -> None:
        self.url = url
        self.key_dir = key_dir
        self.client = RestClient(url)
        self.signers = {name: load_signer(key_dir, name) for name in ("alice", "bob")}

    def key(self, who: str) -> str:
        return self.signers[who].public_key

    def vault(self, who: str) -> Vault:
        return Vault.of(self.key_dir, self.key(who))

    def argv(self, who: str, *argv: str) -> list[str]:
        return [RPS, *argv, "--url", self.url, "--key-dir", str(self.key_dir), "--username", who]

    def start(self, who: str, *argv: str) -> Running:
        process = subprocess.Popen(self.argv(who, *argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   preexec_fn=sigint_at_default)  # noqa: PLW1509 - some tests stop it with Ctrl-C
        return Running(process)

    def run(self, who: str, *argv: str) -> Done:
        return self.start(who, *argv).done()

    def ok(self, who: str, *argv: str) -> Done:
        done = self.run(who, *argv)
        assert done.code == 0, done
        return done

    def throws(self, name: str, alices: str, bobs: str) -> tuple[Done, Done]:
        """Both players throw at once, each in a process of their own; both must finish the round."""
        alice, bob = self.start("alice", "throw", name, alices), self.start("bob", "throw", name, bobs)
        return alice.done(), bob.done()

    def started(self, name: str, settings: Settings = DEFAULT_SETTINGS) -> None:
        """A game alice created with ``settings``, bob joined, both ready: play starts (set up in-process, quickly)."""
        lobby = Moment(0, SETUP_PHASE)  # the create joins alice: the game is being set up until both are ready
        for who, op in (
            ("alice", Create(name, settings=settings)),
            ("bob", Join(name, lobby)),
            ("alice", Ready(name, lobby, settings)),
            ("bob", Ready(name, lobby, settings)),
        ):
            assert self.submit(who, op) == "COMMITTED", (who, op)

    def committed(self, name: str, who: str) -> None:
        """Return once ``who``'s commitment in ``name`` is in committed state (polled, within the bound)."""
        deadline = time.monotonic() + SECONDS
        while time.monotonic() < deadline:
            game = self.game(name)
            if game is not None and any(p.key == self.key(who) and p.commitment for p in game.players):
                return
            time.sleep(0.05)
        raise AssertionError(f"{who} did not commit in {name} within {SECONDS} s")

    def after_time_out(self, name: str) -> None:
        """Return once the game's time-out has run out on the devnet's clock (the machine's: the devnet runs here)."""
        game = self.game(name)
        assert game is not None and game.waiting_since is not None, game
        time.sleep(max(game.waiting_since + game.settings.timeout - time.time(), 0))

    def game(self, name: str) -> Game | None:
        data = self.client.get_state(game_address(name))
        return None if data is None else decode_bucket(game_address(name), data).get(name)

    def submit(self, who: str, op: Op) -> str:
        """Sign ``op`` as ``who`` without any check, wait until decided; the status (and reason)."""
        signer = self.signers[who]
        batch_id = submit(self.client, signer, [make_rps_transaction(signer, op)])
        status = self.client.batch_status(batch_id, wait=int(SECONDS))
        return "; ".join([status.status, *status.reasons])
