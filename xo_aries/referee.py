"""The ledger as referee: each agent records its own moves on a Sawtooth network as an XO game.

With ``anchor_url`` (``xo aries agent --anchor-url URL --username NAME``), the game of thread
``T`` is the XO game named ``T``. Before my move is sent, it is submitted, signed with my key,
and waited for until it commits -- X's first move creates the game in the same batch -- so the
move message never runs ahead of the ledger. A move the ledger refuses is not sent: the route
answers 409/400 with the seed's code for the ledger's reason. When the other agent's move
arrives, the ledger must already show it (the same board and the same XO state); if it does not
within :data:`SETTLE`, the move is answered with a ``problem-report`` (``bad-move``) and the game
stays as it was. So both agents' games, their outcomes included, are always the ledger's.

Both agents must anchor on the same network: an agent that does not anchor never records its
moves, and an anchoring agent refuses them. Ledger I/O is blocking HTTP, run on a worker thread.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from client_core.errors import CommandError
from client_core.keys import load_signer
from client_core.rest import RestClient
from client_core.submission import submit
from client_core.waiting import wait_for_batch
from xo_aries.player import Player, Refusal
from xo_client.aries import ALREADY_OCCUPIED, BAD_MESSAGE, BAD_MOVE, NOT_YOUR_TURN
from xo_client.games import Game, name_problem
from xo_client.seat import read_game
from xo_client.transactions import make_xo_transaction
from xo_core.signing import Signer
from xo_core.text import printable

#: How long my move may take to commit.
COMMIT_WAIT: Final = 30.0
#: How long the other agent's move may take to show in state after its message arrives.
SETTLE: Final = 5.0
POLL: Final = 0.05
DEFAULT_KEY_DIR: Final = Path("~/.sawtooth/keys")
#: The ledger's refusals, by the words of the XO rules, as the seed's problem codes.
REASON_CODES: Final = (("already taken", ALREADY_OCCUPIED), ("turn", NOT_YOUR_TURN))


class LedgerUnavailable(RuntimeError):
    """The ledger could not be asked (unreachable, or my move not decided in time): nothing was sent."""


def reason_code(reason: str) -> str:
    """The seed's problem code for a reason the XO processor gave."""
    return next((code for words, code in REASON_CODES if words in reason), BAD_MOVE)


@dataclass
class Referee:
    """The ledger at ``url`` (None: no ledger, every move the state machine accepts stands)."""

    url: str | None = None
    username: str | None = None
    key_dir: Path = DEFAULT_KEY_DIR
    _signer: Signer | None = None

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> Referee:
        """The referee the plugin settings (``anchor_url``, ``username``, ``key_dir``) ask for."""
        url = settings.get("anchor_url")
        if not url:
            return cls()
        key_dir = Path(str(settings.get("key_dir") or DEFAULT_KEY_DIR)).expanduser()
        return cls(str(url), str(settings.get("username") or ""), key_dir)

    @property
    def enabled(self) -> bool:
        """Whether moves are recorded on a ledger."""
        return self.url is not None

    def check_name(self, thread_id: str) -> None:
        """A thread whose id cannot name an XO game cannot be anchored."""
        if self.enabled and (problem := name_problem(thread_id)):
            raise Refusal(BAD_MESSAGE, f"the thread id cannot name a game on the ledger: {problem}")

    async def own_move(self, thread_id: str, player: Player) -> dict[str, Any]:
        """Record my last move; ``Refusal`` if the ledger refuses it, ``LedgerUnavailable`` if it cannot say."""
        if not self.enabled:
            return {}
        self.check_name(thread_id)
        return await asyncio.to_thread(self._record, thread_id, player)

    async def their_move(self, thread_id: str, player: Player) -> dict[str, Any]:
        """Check that the ledger shows the other player's last move; ``Refusal`` (``bad-move``) if it does not."""
        if not self.enabled:
            return {}
        self.check_name(thread_id)
        return await asyncio.to_thread(self._confirm, thread_id, player)

    def _signer_of(self) -> Signer:
        if self._signer is None:
            try:
                self._signer = load_signer(self.key_dir, self.username or "", "xo aries agent")
            except CommandError as missing:
                raise LedgerUnavailable(missing.message) from None
        return self._signer

    def _record(self, name: str, player: Player) -> dict[str, Any]:
        move = player.moves[-1]
        signer = self._signer_of()
        transactions = [make_xo_transaction(signer, name, "take", move.space)]
        if len(player.moves) == 1:
            transactions.insert(0, make_xo_transaction(signer, name, "create"))
        try:
            with RestClient(str(self.url)) as client:
                batch_id = submit(client, signer, transactions)
                outcome = wait_for_batch(client, batch_id, COMMIT_WAIT)
                if outcome.status == "INVALID":
                    reason = printable("; ".join(reason for reason in outcome.reasons if reason) or "no reason given")
                    raise Refusal(reason_code(reason), f"the ledger refused {move.notation()}: {reason}", conflict=True)
                if outcome.status != "COMMITTED":
                    raise LedgerUnavailable(
                        f"{move.notation()} is still {outcome.status} on the ledger (batch {batch_id})"
                    )
                game = read_game(client, name)
        except CommandError as failed:
            raise LedgerUnavailable(f"the ledger at {self.url}: {failed.message}") from None
        return self._agreeing(name, player, game, batch_id)

    def _confirm(self, name: str, player: Player) -> dict[str, Any]:
        move = player.moves[-1]
        deadline = time.monotonic() + SETTLE
        game = None
        try:
            with RestClient(str(self.url)) as client:
                while True:
                    game = read_game(client, name)
                    if game is not None and (game.board, game.state) == (player.board, player.game.state):
                        return self._agreeing(name, player, game, None)
                    if time.monotonic() >= deadline:
                        break
                    time.sleep(POLL)
        except CommandError as failed:
            raise Refusal(BAD_MOVE, f"the ledger cannot confirm {move.notation()}: {failed.message}") from None
        shown = f"its board is {game.board} ({game.state})" if game else "it has no such game"
        raise Refusal(BAD_MOVE, f"the ledger does not record {move.notation()}: {shown}")

    @staticmethod
    def _agreeing(name: str, player: Player, game: Game | None, batch_id: str | None) -> dict[str, Any]:
        """The ledger's view of the game, which must be the players' (else the game cannot go on)."""
        if game is None or (game.board, game.state) != (player.board, player.game.state):
            shown = f"{game.board} ({game.state})" if game else "no game"
            raise LedgerUnavailable(f"the ledger's game {name} is {shown}, not {player.board}")
        info = {"name": name, "board": game.board, "state": game.state, "player1": game.player1}
        info |= {"player2": game.player2} | ({"batch_id": batch_id} if batch_id else {})
        return info
