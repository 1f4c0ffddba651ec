"""xo-devnet's faucet: chips for a new key at once, issued from the devnet's own issuer key, within stated limits.

A real network's chips come from its issuers (the keys in the setting ``chips.issuers``),
who decide whom to give them; a devnet is for trying things, so, as a testnet faucet
does, it gives any key some on request (``chips faucet``, ``POST /xo-devnet/faucet``).
The limits keep a script asking in a loop from minting without end: each key gets at most
:data:`PER_KEY_PER_HOUR` chips in any hour, and all keys together at most
:data:`ALL_KEYS_PER_HOUR` (so fresh keys by the thousand do not help). The book is kept in
memory: a restarted devnet starts it afresh. No I/O: the route submits the issue.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from chips_client.faucet import ALL_KEYS_PER_HOUR, PER_KEY_PER_HOUR
from xo_core.signing import Signer

WINDOW_SECONDS: Final = 3600


class OverLimit(Exception):
    """A request the limits refuse: ``message`` says which limit, and ``retry_after`` when asking again can work."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message, self.retry_after = message, retry_after


@dataclass
class FaucetBook:
    """What the faucet gave in the last hour: (when, key, chips) oldest first, pruned as they leave the window."""

    per_key: int = PER_KEY_PER_HOUR
    all_keys: int = ALL_KEYS_PER_HOUR
    window: float = WINDOW_SECONDS
    given: deque[tuple[float, str, int]] = field(default_factory=deque)

    def _prune(self, now: float) -> None:
        while self.given and self.given[0][0] <= now - self.window:
            self.given.popleft()

    def reserve(self, key: str, amount: int, now: float) -> None:
        """Count ``amount`` chips for ``key`` at ``now`` if both limits allow them; :class:`OverLimit` if not."""
        self._prune(now)
        if amount > self.per_key:
            raise OverLimit(f"the faucet gives at most {self.per_key} chips a key in an hour; ask for that or less", 0)
        mine = [(when, chips) for when, who, chips in self.given if who == key]
        if sum(chips for _when, chips in mine) + amount > self.per_key:
            raise self._over(mine, amount, self.per_key, f"this key had its {self.per_key} chips for this hour", now)
        everyone = [(when, chips) for when, _who, chips in self.given]
        if sum(chips for _when, chips in everyone) + amount > self.all_keys:
            raise self._over(everyone, amount, self.all_keys, f"the faucet gave its {self.all_keys} chips for this "
                             "hour to all keys together", now)  # fmt: skip
        self.given.append((now, key, amount))

    def release(self, key: str, amount: int, now: float) -> None:
        """Forget the newest reservation of ``amount`` for ``key`` made up to ``now``: its issue did not commit."""
        for index in range(len(self.given) - 1, -1, -1):
            when, who, chips = self.given[index]
            if who == key and chips == amount and when <= now:
                del self.given[index]
                return

    def _over(self, counted: list[tuple[float, int]], amount: int, limit: int, why: str, now: float) -> OverLimit:
        """The refusal, saying when enough of ``counted`` (oldest first) leaves the window for ``amount`` to fit."""
        total, wait = sum(chips for _when, chips in counted), math.ceil(self.window)
        for when, chips in counted:
            total -= chips
            if total + amount <= limit:
                wait = max(1, math.ceil(when + self.window - now))
                break
        return OverLimit(f"{why}; ask again in {wait} s", wait)


@dataclass
class Faucet:
    """The devnet's faucet: the issuer key it signs with (None: the devnet has none) and the book of its limits."""

    issuer: Signer | None
    book: FaucetBook = field(default_factory=FaucetBook)
    clock: Callable[[], float] = time.monotonic
