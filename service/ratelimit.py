"""Fixed-window request limits kept in Redis, so every API process shares the same counts."""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass
from typing import Callable

WINDOW_S = 60


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: allowed, and if not, seconds until the window turns."""

    allowed: bool
    retry_after: int = 0


class RateLimiter:
    """Counts requests per (kind, identity) and minute with INCR + EXPIRE (RFC 6585 429 on excess).

    ``limit_per_minute`` <= 0 switches limiting off. Identities are hashed before they become
    part of a key, so a bearer token never appears in Redis in clear.
    """

    def __init__(self, redis, prefix: str, limit_per_minute: int, clock: Callable[[], float] = time.time):
        self.redis = redis
        self.prefix = prefix
        self.limit = limit_per_minute
        self.clock = clock

    def key(self, kind: str, identity: str, window: int) -> str:
        """The Redis key counting ``identity``'s requests in one window."""
        digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:32]
        return f"{self.prefix}:rl:{kind}:{digest}:{window}"

    def hit(self, *identities: tuple[str, str]) -> Verdict:
        """Count one request against every (kind, identity); refused if any is over the limit."""
        if self.limit <= 0 or not identities:
            return Verdict(True)
        now = self.clock()
        window = int(now // WINDOW_S)
        pipe = self.redis.pipeline(transaction=False)
        for kind, identity in identities:
            k = self.key(kind, identity, window)
            pipe.incr(k)
            # the key names its window, so a fresh TTL on every hit never extends a window
            pipe.expire(k, WINDOW_S + 1)
        counts = pipe.execute()[0::2]
        if all(c <= self.limit for c in counts):
            return Verdict(True)
        return Verdict(False, max(1, math.ceil((window + 1) * WINDOW_S - now)))
