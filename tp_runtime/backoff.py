"""How long to wait before trying the validator again: doubling, capped, reset by success."""


class Backoff:
    """Delays ``first, 2*first, 4*first, ...`` up to ``ceiling`` seconds."""

    def __init__(self, first: float, ceiling: float) -> None:
        if not 0 < first <= ceiling:
            raise ValueError(f"back-off needs 0 < first <= ceiling, got first={first}, ceiling={ceiling}")
        self._first = first
        self._ceiling = ceiling
        self._next = first

    def next_delay(self) -> float:
        """The wait before the next attempt; each call doubles the one after it, up to the ceiling."""
        delay = self._next
        self._next = min(self._next * 2, self._ceiling)
        return delay

    def reset(self) -> None:
        """Start from ``first`` again: the validator answered, so the next loss is a fresh one."""
        self._next = self._first
