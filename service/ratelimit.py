"""Fixed-window request limits kept in Redis, so every API process shares the same counts."""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass
from typing import Callable

from redis.cluster import RedisCluster

WINDOW_S = 60

# KEYS: one counter per identity   ARGV: seconds the counters live   -> the highest count
# A counter's TTL is set when it is created: the key names its window, so it only has to outlive it.
_HIT = """
local highest = 0
for _, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('EXPIRE', key, ARGV[1]) end
  if count > highest then highest = count end
end
return highest
"""


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
        self._hit = redis.register_script(_HIT)

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
        keys = [self.key(kind, identity, window) for kind, identity in identities]
        # one script call counts every identity: a round trip per request, cheaper than a pipeline.
        # The counters of one request live in different slots, which only a single server allows
        # in one script: on a cluster each is counted by its own call.
        if not isinstance(self.redis, RedisCluster):
            highest = int(self._hit(keys=keys, args=[WINDOW_S + 1]))
        else:
            highest = max(int(self._hit(keys=[k], args=[WINDOW_S + 1])) for k in keys)
        if highest <= self.limit:
            return Verdict(True)
        return Verdict(False, max(1, math.ceil((window + 1) * WINDOW_S - now)))
