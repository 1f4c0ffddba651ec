"""One rps game followed block by block, and how long a command may still wait for it.

Everything a command decides on is committed state: a reveal is sent only once both
commitments are in a committed block, never on the strength of a pending batch.
Following starts by reading the game (:func:`rps_client.games.read_game`) as of the
block the follower stands on, so no change between the read and the first block can
be missed (:mod:`client_core.follow`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from client_core.blocks import ChainChanged
from client_core.errors import InvalidInput
from client_core.follow import Follower
from client_core.rest import RestClient
from client_core.runner import notice, warn
from rps_client.games import decode_games, find_game, read_game
from rps_tp.family import game_address
from rps_tp.game import Game
from xo_core.text import game_label


class Budget:
    """How long a command may still wait, across all its waits (``--wait SECONDS``; ``math.inf``: no limit)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds

    def remaining(self) -> float:
        if math.isinf(self.seconds):
            return math.inf
        return max(self._end - time.monotonic(), 0.0)


class OutOfTime(Exception):
    """The budget ran out before the game reached the point waited for."""


class FollowedGame:
    """One game kept up to date block by block from the block the follower starts on."""

    def __init__(self, client: RestClient, name: str) -> None:
        self.client = client
        self.name = name
        self.address = game_address(name)
        self.game: Game | None = None
        self._follower: Follower | None = None
        self._start()

    def _start(self) -> None:
        follower = Follower(
            self.client.base_url,
            [self.address],
            auth=self.client.auth,
            trace=self.client.trace,
            on_notice=lambda message: notice("rps", message),
        )
        try:
            start = follower.start()
            self.game = read_game(self.client, self.name, head=start.block_id)
        except BaseException:
            follower.close()
            raise
        self._follower = follower

    def until(
        self,
        reached: Callable[[Game | None], bool],
        budget: Budget,
        announce: Callable[[Game | None], str] | None = None,
    ) -> Game | None:
        """The game once ``reached`` says so; :class:`OutOfTime` if ``budget`` runs out first.

        ``announce`` gives the one line said (on stderr) when there is something to wait for.
        If the chain followed is replaced (a ledger started afresh), the game is read
        again from the new chain's newest block.
        """
        announced = False
        while not reached(self.game):
            if announce is not None and not announced:
                notice("rps", announce(self.game))
                announced = True
            assert self._follower is not None
            try:
                block = self._follower.next_within(budget.remaining())
            except ChainChanged as changed:
                warn("rps", f"{changed.message}; reading the game again from its newest block")
                self.close()
                self._start()
                continue
            if block is None:
                raise OutOfTime
            for change in block.changes:
                if change.address == self.address:
                    self.game = self._decoded(change.value) if change.type == "SET" else None
        return self.game

    def _decoded(self, data: bytes) -> Game | None:
        games, problems = decode_games(self.address, data)
        if problems:
            raise InvalidInput(f"{game_label(self.name)} cannot be read any more: {'; '.join(problems)}")
        return find_game(games, self.name)

    def close(self) -> None:
        if self._follower is not None:
            follower, self._follower = self._follower, None
            follower.close()

    def __enter__(self) -> FollowedGame:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
