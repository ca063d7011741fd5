"""Fixed-window request limits kept in Redis, so every API process shares the same counts.

Each identity (an address, a token) has one counter per minute in Redis. A process does not ask
Redis about every request: it reserves counts in blocks (``INCRBY``) and hands them out locally,
so most requests cost no round trip. Redis grants a block only up to the limit, so however many
processes share the counter, **no identity is ever let through more than the limit in a window**.
The price is the other direction: counts one process reserved and has not used yet are missing
to the others, so a client can be refused up to (processes x block - 1) requests before the
limit. Blocks start at 1 and double while they are used up, to at most limit / 50 (and 32); a
limit under 100 is therefore counted exactly, one round trip per request.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

from redis.cluster import RedisCluster

WINDOW_S = 60
#: the largest block of counts a process reserves at once
MAX_BLOCK = 32
#: identities whose unused counts a process remembers (the oldest are forgotten first)
MAX_LEASES = 10_000

# KEYS: one counter per identity   ARGV: TTL, limit, then the count wanted of each key
# -> the count granted of each key: what it wanted, less whatever would pass the limit (>= 0).
# A counter's TTL is set when it is created: the key names its window, so it only has to outlive it.
_RESERVE = """
local limit = tonumber(ARGV[2])
local granted = {}
for i, key in ipairs(KEYS) do
  local want = tonumber(ARGV[i + 2])
  local count = redis.call('INCRBY', key, want)
  if count == want then redis.call('EXPIRE', key, ARGV[1]) end
  granted[i] = math.max(0, math.min(want, limit - (count - want)))
end
return granted
"""


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: allowed, and if not, seconds until the window turns."""

    allowed: bool
    retry_after: int = 0


class _Lease:
    """Counts of one counter this process reserved and has not used, and the next block to ask."""

    __slots__ = ("left", "block")

    def __init__(self):
        self.left = 0
        self.block = 1


class RateLimiter:
    """Counts requests per (kind, identity) and minute (RFC 6585 429 on excess); see the module doc.

    ``limit_per_minute`` <= 0 switches limiting off. ``max_block`` caps the counts reserved at
    once (default: limit / 50, between 1 and 32). Identities are hashed before they become part
    of a key, so a bearer token never appears in Redis in clear. Safe to share between threads.
    """

    def __init__(self, redis, prefix: str, limit_per_minute: int, clock: Callable[[], float] = time.time,
                 max_block: int | None = None):
        self.redis = redis
        self.prefix = prefix
        self.limit = limit_per_minute
        self.clock = clock
        self.max_block = max_block if max_block is not None else max(1, min(MAX_BLOCK, limit_per_minute // 50))
        self._reserve = redis.register_script(_RESERVE)
        self._lock = threading.Lock()
        self._leases: OrderedDict[tuple, _Lease] = OrderedDict()
        self._window = None

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
        # leases are looked up by identity (the process holds them in memory only); the Redis
        # key, a hash, is computed when a block has to be reserved
        keys = [(kind, identity, window) for kind, identity in identities]
        taken, short = [], []
        with self._lock:
            if window != self._window:  # counts of a past window are worth nothing
                self._leases.clear()
                self._window = window
            for k in keys:
                lease = self._leases.get(k)
                if lease is not None and lease.left > 0:
                    lease.left -= 1
                    taken.append(k)
                else:
                    short.append(k)
            if not short:
                return Verdict(True)
            blocks = [self._lease(k).block for k in short]
        granted = self._ask([self.key(*k) for k in short], blocks)
        with self._lock:
            for k, want, got in zip(short, blocks, granted):
                lease = self._lease(k)
                lease.left += max(0, got - 1)  # one of them is this request's
                lease.block = min(self.max_block, 2 * want) if got == want else 1
            refused = any(got < 1 for got in granted)
            if refused:
                for k, got in zip(short, granted):
                    if got >= 1:
                        self._lease(k).left += 1
                for k in taken:
                    self._lease(k).left += 1
        if not refused:
            return Verdict(True)
        return Verdict(False, max(1, math.ceil((window + 1) * WINDOW_S - now)))

    def _lease(self, key: tuple) -> _Lease:
        lease = self._leases.get(key)
        if lease is None:
            lease = self._leases[key] = _Lease()
            if len(self._leases) > MAX_LEASES:
                self._leases.popitem(last=False)  # its unused counts are lost: refusals come sooner, never later
        return lease

    def _ask(self, keys: list[str], blocks: list[int]) -> list[int]:
        """Reserve ``blocks[i]`` counts of ``keys[i]`` in Redis; the counts granted."""
        # one script call reserves every identity's block: one round trip. The counters of one
        # request live in different slots, which only a single server allows in one script: on a
        # cluster each is reserved by its own call.
        if not isinstance(self.redis, RedisCluster):
            return [int(g) for g in self._reserve(keys=keys, args=[WINDOW_S + 1, self.limit, *blocks])]
        return [int(self._reserve(keys=[k], args=[WINDOW_S + 1, self.limit, b])[0]) for k, b in zip(keys, blocks)]
