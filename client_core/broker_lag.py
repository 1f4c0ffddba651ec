"""How far behind a broker is: the time it takes to acknowledge what is published to it, smoothed. Pure.

A broker that needs seconds to acknowledge a message needs as long to deliver one: a
crowd's messages queue in it. Whoever waits on an opponent's answer through it (a match's
patience), or decides whether to start more matches (a house), reads this rather than
blaming the opponent. The figure forgets: once no acknowledgment came for HALF_LIFE_SECONDS
it halves every HALF_LIFE_SECONDS more, so a broker that was behind is not held to it once
nothing is sent through it.
"""

from __future__ import annotations

from typing import Final

#: How much a new acknowledgment counts in the smoothed figure (the rest is the figure before it).
WEIGHT: Final = 0.25
#: With no acknowledgment for this long (seconds), the smoothed figure starts halving every as long again.
HALF_LIFE_SECONDS: Final = 2.0


class BrokerLag:
    """Seconds from publishing to the broker's acknowledgment, smoothed; a message still waiting counts as it ages.

    Times are the caller's monotonic clock; the caller serialises the calls (a broker session does, under its lock).
    """

    def __init__(self) -> None:
        self._smoothed = 0.0
        self._sampled_at = 0.0
        self._waiting: dict[int, float] = {}

    def sent(self, mid: int, at: float) -> None:
        """Message ``mid`` was published at ``at`` and is waiting for its acknowledgment."""
        self._waiting[mid] = at

    def acknowledged(self, mid: int, at: float) -> None:
        """The broker acknowledged message ``mid`` at ``at`` (one not waited on is ignored)."""
        sent = self._waiting.pop(mid, None)
        if sent is not None:
            self.took(at - sent, at)

    def gave_up(self, mid: int, at: float) -> None:
        """Nobody waits for message ``mid`` any more: it counts as taking until ``at``, and is forgotten."""
        self.acknowledged(mid, at)

    def took(self, seconds: float, at: float) -> None:
        """One acknowledgment took ``seconds``, measured at ``at``."""
        self._smoothed = (1 - WEIGHT) * self._forgotten(at) + WEIGHT * max(seconds, 0.0)
        self._sampled_at = at

    def seconds(self, now: float) -> float:
        """How far behind the broker is at ``now``: the smoothed time to an acknowledgment, or the age of the oldest
        message still waiting for one, whichever is more."""
        return max(self._forgotten(now), now - min(self._waiting.values(), default=now))

    def _forgotten(self, now: float) -> float:
        idle = max(now - self._sampled_at - HALF_LIFE_SECONDS, 0.0)
        return self._smoothed * 0.5 ** (idle / HALF_LIFE_SECONDS)
