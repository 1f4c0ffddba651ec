"""``--auto-play``: the agent answers every move itself with the computer player of ``xo play``. Pure."""

from __future__ import annotations

import random

from xo_aries.player import Player
from xo_client.ai import Level, choose_move
from xo_client.notation import grid_name


def auto_cell(player: Player, level: str, rng: random.Random) -> str:
    """The cell (``B2``) the computer plays at ``level`` for my mark; ``ValueError`` for an unknown level."""
    return grid_name(choose_move(player.board, player.me, rng, Level(level)))
