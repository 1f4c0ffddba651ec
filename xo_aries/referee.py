"""The ledger as referee: with ``anchor_url`` set, each agent records its own moves as an XO game.

Filled in by the anchoring stage; without ``anchor_url`` the referee has nothing to check.
"""

from __future__ import annotations

from typing import Any

from xo_aries.player import Player


class Referee:
    """No ledger: every move the state machine accepts stands."""

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> Referee:
        """The referee the plugin settings ask for."""
        return cls()

    async def own_move(self, thread_id: str, player: Player) -> None:
        """Record my move ``player.moves[-1]`` before it is sent."""

    async def their_move(self, thread_id: str, player: Player) -> None:
        """Check the other player's move ``player.moves[-1]`` against the ledger."""
