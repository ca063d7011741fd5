"""Fixed-window request limits kept in Redis, so every API process shares the same counts.

Each identity (an address, a token) has one counter per window of each kind, and none passes its limit.
Most kinds count a minute; game creations and bot registrations are also counted by the hour and the day.
A request that presents a token this server issued counts against that token.
Any other counts against its address (an IPv6 one against its network).
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
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
#: the cap on all token-bearing requests of one address, as a multiple of the limit. A token is
#: one POST away, so without it one address could make tokens and send the limit through each;
#: with it the address gets at most this many tokens' worth, while ten bots or people at full
#: speed on one machine still fit. It is counted apart from the address's own (anonymous)
#: budget, which token-bearing requests never use up.
ADDRESS_TOKENS_FACTOR = 10
#: the limit of each kind of counter as a multiple of its base limit (kinds not named here: 1)
LIMIT_FACTORS = {"addr-tokens": ADDRESS_TOKENS_FACTOR, "stream-addr-tokens": ADDRESS_TOKENS_FACTOR}
#: the kinds of counter whose identity is a client address (an IPv6 one is counted by network)
ADDRESS_KINDS = frozenset({"addr", "addr-tokens", "stream-addr", "stream-addr-tokens", "create-hour",
                           "create-day", "register-hour", "register-day"})
HOUR_S = 3600
DAY_S = 86400
#: the base limit and window (seconds) of the kinds not counted by the limiter's own per-minute
#: limit, as the settings set them by default (GINBOX_RATE_LIMIT_STREAMS, GINBOX_CREATIONS_PER_HOUR, ...)
DEFAULT_LIMITS = {
    "stream-token": (60, WINDOW_S), "stream-addr": (60, WINDOW_S), "stream-addr-tokens": (60, WINDOW_S),
    "create-hour": (2000, HOUR_S), "create-day": (10_000, DAY_S),
    "register-hour": (20, HOUR_S), "register-day": (100, DAY_S),
}
#: the IPv6 prefix an address is counted by: a /64 is what one subscriber or host is usually given
IPV6_PREFIX = 64


@functools.lru_cache(maxsize=4096)
def address_identity(address: str, ipv6_prefix: int = IPV6_PREFIX) -> str:
    """Whom requests from ``address`` are counted against: an IPv4 address itself (an IPv4-mapped
    IPv6 address as its IPv4 one), an IPv6 address its ``/ipv6_prefix`` network; anything that is
    no address (``"unknown"``) as it is."""
    # An IPv6 client is counted by its network, not its address.
    # One subscriber or host is commonly given a whole /64, 2**64 addresses.
    # Counted address by address, it would have no limit at all.
    # The prefix is a setting (GINBOX_RATE_LIMIT_IPV6_PREFIX, 64 by default); 128 counts each address.
    # An IPv4 address (an IPv4-mapped IPv6 one included) counts on its own.
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return address
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((int(ip), ipv6_prefix), strict=False))

# KEYS: one counter per identity   ARGV: the count wanted, the limit and the TTL of each key
# -> per key, the count granted (what it wanted, less whatever would pass its limit, >= 0), then
# the counts nobody has reserved yet (the limit less the counter, >= 0).
# A counter's TTL is set when it is created: the key names its window, so it only has to outlive it.
_RESERVE = """
local out = {}
for i, key in ipairs(KEYS) do
  local want = tonumber(ARGV[3 * i - 2])
  local limit = tonumber(ARGV[3 * i - 1])
  local count = redis.call('INCRBY', key, want)
  if count == want then redis.call('EXPIRE', key, ARGV[3 * i]) end
  out[2 * i - 1] = math.max(0, math.min(want, limit - (count - want)))
  out[2 * i] = math.max(0, limit - count)
end
return out
"""


@dataclass(frozen=True)
class Standing:
    """One counter after a request: its kind, limit and window, what is left of it, and seconds until it turns."""

    kind: str
    limit: int
    window_s: int
    remaining: int
    reset_s: int


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: allowed, and if not, seconds until the window turns.

    ``standings``: each counter the request was counted against, in the order asked;
    ``refused_by``: the kind of the counter that refused it (the one that turns last).
    """

    allowed: bool
    retry_after: int = 0
    standings: tuple[Standing, ...] = ()
    refused_by: str | None = None


class _Lease:
    """Counts of one counter this process reserved and has not used, and the next block to ask."""

    __slots__ = ("left", "block", "free")

    def __init__(self):
        self.left = 0
        self.block = 1
        self.free = 0  # counts nobody had reserved when Redis was last asked


class RateLimiter:
    """Counts requests per (kind, identity) and minute (RFC 6585 429 on excess); safe to share between threads.

    ``limit_per_minute`` <= 0 switches limiting off; a kind in ``LIMIT_FACTORS`` has that multiple of it.
    ``limits``: (base limit, window in seconds) of the kinds counted otherwise (default ``DEFAULT_LIMITS``);
    a kind whose limit is <= 0 is not counted.
    ``max_block`` caps the counts reserved at once (default: the counter's limit / 50, between 1 and 32).
    An address (kinds in ``ADDRESS_KINDS``) is counted as ``address_identity(address, ipv6_prefix)``.
    """

    # A process does not ask Redis about every request.
    # It reserves counts in blocks (INCRBY) and hands them out locally, so most requests cost no round trip.
    # Redis grants a block only up to the limit.
    # So however many processes share the counter, no identity is ever let through more than the limit in a window.
    # The price is the other direction: counts one process reserved and has not used yet are missing to the others.
    # So a client can be refused up to (processes x block - 1) requests before the limit.
    # Blocks start at 1 and double while they are used up, to at most the counter's limit / 50 (and 32).
    # A limit under 100 is therefore counted exactly, one round trip per request.

    def __init__(self, redis, prefix: str, limit_per_minute: int, clock: Callable[[], float] = time.time,
                 max_block: int | None = None, ipv6_prefix: int = IPV6_PREFIX,
                 limits: dict[str, tuple[int, int]] | None = None):
        self.redis = redis
        self.limits = {**DEFAULT_LIMITS, **(limits or {})}
        self.prefix = prefix
        self.limit = limit_per_minute
        self.ipv6_prefix = ipv6_prefix
        self.clock = clock
        self.max_block = max_block if max_block is not None else self._block_cap(limit_per_minute)
        self._fixed_block = max_block is not None
        self._reserve = redis.register_script(_RESERVE)
        self._lock = threading.Lock()
        self._leases: OrderedDict[tuple, _Lease] = OrderedDict()
        self._window = None

    @staticmethod
    def _block_cap(limit: int) -> int:
        return max(1, min(MAX_BLOCK, limit // 50))

    def limit_of(self, kind: str) -> int:
        """The requests a window a counter of ``kind`` allows."""
        base = self.limits[kind][0] if kind in self.limits else self.limit
        return base * LIMIT_FACTORS.get(kind, 1)

    def window_of(self, kind: str) -> int:
        """The seconds of a window of ``kind``'s counters."""
        return self.limits[kind][1] if kind in self.limits else WINDOW_S

    def _max_block_of(self, kind: str) -> int:
        if self.window_of(kind) != WINDOW_S:
            return 1  # counts of an hour or a day are few, and a lease must not outlive its minute
        return self.max_block if self._fixed_block else self._block_cap(self.limit_of(kind))

    def key(self, kind: str, identity: str, window: int) -> str:
        """The Redis key counting ``identity``'s requests in one window."""
        # identities are hashed before they become part of a key, so a bearer token never appears in Redis in clear
        digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:32]
        return f"{self.prefix}:rl:{kind}:{digest}:{window}"

    def hit(self, *identities: tuple[str, str]) -> Verdict:
        """Count one request against every (kind, identity); refused if any is over the limit."""
        identities = tuple((kind, who) for kind, who in identities if self.limit_of(kind) > 0)
        if self.limit <= 0 or not identities:
            return Verdict(True)
        now = self.clock()
        window = int(now // WINDOW_S)
        # leases are looked up by identity (the process holds them in memory only); the Redis
        # key, a hash, is computed when a block has to be reserved
        keys = [(kind, address_identity(identity, self.ipv6_prefix) if kind in ADDRESS_KINDS else identity,
                 int(now // self.window_of(kind)))
                for kind, identity in identities]
        taken, short = [], []
        with self._lock:
            if window != self._window:  # counts of a past window are worth nothing
                self._leases = OrderedDict((k, v) for k, v in self._leases.items()
                                           if k[2] == int(now // self.window_of(k[0])))
                self._window = window
            for k in keys:
                lease = self._leases.get(k)
                if lease is not None and lease.left > 0:
                    lease.left -= 1
                    taken.append(k)
                else:
                    short.append(k)
            if not short:
                return Verdict(True, standings=self._standings(keys, now, ()))
            blocks = [self._lease(k).block for k in short]
        answers = self._ask([self.key(*k) for k in short], blocks, [self.limit_of(k[0]) for k in short])
        with self._lock:
            for k, want, (got, free) in zip(short, blocks, answers):
                lease = self._lease(k)
                lease.left += max(0, got - 1)  # one of them is this request's
                lease.free = free
                lease.block = min(self._max_block_of(k[0]), 2 * want) if got == want else 1
            refusing = [k for k, (got, _) in zip(short, answers) if got < 1]
            if refusing:
                for k, (got, _) in zip(short, answers):
                    if got >= 1:
                        self._lease(k).left += 1
                for k in taken:
                    self._lease(k).left += 1
            standings = self._standings(keys, now, refusing)
        if not refusing:
            return Verdict(True, standings=standings)
        last = max(refusing, key=lambda k: self._reset(k, now))
        return Verdict(False, self._reset(last, now), standings, last[0])

    def _reset(self, key: tuple, now: float) -> int:
        """Seconds until the window of ``key`` (kind, identity, window) turns (at least 1)."""
        length = self.window_of(key[0])
        return max(1, math.ceil((key[2] + 1) * length - now))

    def _standings(self, keys: list[tuple], now: float, refusing) -> tuple[Standing, ...]:
        # what is left: the counts nobody had reserved when Redis was last asked, and those this
        # process holds unused; other processes may have used some of the former since
        out = []
        for k in keys:
            lease = self._leases.get(k)
            left = 0 if k in refusing or lease is None else lease.free + lease.left
            out.append(Standing(k[0], self.limit_of(k[0]), self.window_of(k[0]), left, self._reset(k, now)))
        return tuple(out)

    def _lease(self, key: tuple) -> _Lease:
        lease = self._leases.get(key)
        if lease is None:
            lease = self._leases[key] = _Lease()
            if len(self._leases) > MAX_LEASES:
                self._leases.popitem(last=False)  # its unused counts are lost: refusals come sooner, never later
        return lease

    def _ask(self, keys: list[str], blocks: list[int], limits: list[int]) -> list[tuple[int, int]]:
        """Reserve ``blocks[i]`` counts of ``keys[i]`` (limit ``limits[i]``) in Redis; per key, the
        counts granted and the counts nobody has reserved yet."""
        # one script call reserves every identity's block: one round trip. The counters of one
        # request live in different slots, which only a single server allows in one script: on a
        # cluster each is reserved by its own call.
        ttls = [self._ttl(k) for k in keys]
        if not isinstance(self.redis, RedisCluster):
            args = []
            for block, limit, ttl in zip(blocks, limits, ttls):
                args += [block, limit, ttl]
            out = [int(g) for g in self._reserve(keys=keys, args=args)]
        else:
            out = [int(v) for k, b, lim, ttl in zip(keys, blocks, limits, ttls)
                   for v in self._reserve(keys=[k], args=[b, lim, ttl])]
        return list(zip(out[0::2], out[1::2]))

    def _ttl(self, key: str) -> int:
        kind = key[len(self.prefix) + 4:].split(":", 1)[0]  # "<prefix>:rl:<kind>:..."
        return self.window_of(kind) + 1




from service.ratelimit.scope import (KNOWN_TOKENS, TOKEN_MAKING_ENDPOINTS, TokenCheck,  # noqa: E402
                                     identities)

__all__ = ["ADDRESS_KINDS", "ADDRESS_TOKENS_FACTOR", "DEFAULT_LIMITS", "IPV6_PREFIX", "KNOWN_TOKENS",
           "LIMIT_FACTORS", "RateLimiter", "Standing", "TOKEN_MAKING_ENDPOINTS", "TokenCheck", "Verdict",
           "WINDOW_S", "address_identity", "identities"]
