"""The computer's moves: ``chips bot``'s, the watchtower's, and the stand-in for a player who does not answer in time.

At XO it plays xo's AI (:mod:`xo_client.ai`) at a level; at rps every level throws
uniformly at random, since no strategy beats that.
"""

from __future__ import annotations

import random

from rps_tp.game import THROWS
from xo_client.ai import Level, choose_move, solve_every_position


class Computer:
    """xo's AI at ``level``; at rps a uniformly random throw."""

    def __init__(self, level: str = "perfect", rng: random.Random | None = None) -> None:
        self.level = Level(level)
        self.rng = rng or random.SystemRandom()

    def xo_space(self, board: str, mark: str) -> int:
        """The computer's tic-tac-toe move (1-9) for ``mark`` on ``board``, at its level."""
        return choose_move(board, mark, self.rng, self.level)  # type: ignore[arg-type]

    def ready(self) -> Computer:
        """Do the level's one-off work now, so that its first move costs what the others do: ``perfect`` solves the
        whole game once (50 to 90 ms of CPU), which in a house would hold up every match starting beside the first."""
        if self.level == Level.PERFECT:
            solve_every_position()
        return self

    def rps_throw(self) -> str:
        """A throw at random, so it cannot be predicted."""
        return self.rng.choice(THROWS)
