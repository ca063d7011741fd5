"""A clock the test moves by hand, for what the stores and the use cases time (ms since the epoch)."""

from __future__ import annotations


class ManualClock:
    """Reads the same time until the test moves it on."""

    def __init__(self, now: int = 1_700_000_000_000):
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        """Let ``ms`` milliseconds pass."""
        self.now += ms
