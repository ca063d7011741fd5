"""Fixed-window request limits kept in Redis, so every API process shares the same counts.

Each identity (an address, a token) has one counter per minute, and none passes the limit in a window.
A request that presents a token this server issued counts against that token.
Any other counts against its address (an IPv6 one against its network).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import ipaddress
import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

from redis.cluster import RedisCluster

from service.store.tokens import hash_token

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
#: the limit of each kind of counter as a multiple of the limiter's (kinds not named here: 1)
LIMIT_FACTORS = {"addr-tokens": ADDRESS_TOKENS_FACTOR}
#: the kinds of counter whose identity is a client address (an IPv6 one is counted by network)
ADDRESS_KINDS = frozenset({"addr", "addr-tokens"})
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

# KEYS: one counter per identity   ARGV: TTL, then the count wanted and the limit of each key
# -> the count granted of each key: what it wanted, less whatever would pass its limit (>= 0).
# A counter's TTL is set when it is created: the key names its window, so it only has to outlive it.
_RESERVE = """
local granted = {}
for i, key in ipairs(KEYS) do
  local want = tonumber(ARGV[2 * i])
  local limit = tonumber(ARGV[2 * i + 1])
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
    """Counts requests per (kind, identity) and minute (RFC 6585 429 on excess); safe to share between threads.

    ``limit_per_minute`` <= 0 switches limiting off; a kind in ``LIMIT_FACTORS`` has that multiple of it.
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
                 max_block: int | None = None, ipv6_prefix: int = IPV6_PREFIX):
        self.redis = redis
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
        """The requests a minute a counter of ``kind`` allows."""
        return self.limit * LIMIT_FACTORS.get(kind, 1)

    def _max_block_of(self, kind: str) -> int:
        return self.max_block if self._fixed_block else self._block_cap(self.limit_of(kind))

    def key(self, kind: str, identity: str, window: int) -> str:
        """The Redis key counting ``identity``'s requests in one window."""
        # identities are hashed before they become part of a key, so a bearer token never appears in Redis in clear
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
        keys = [(kind, address_identity(identity, self.ipv6_prefix) if kind in ADDRESS_KINDS else identity, window)
                for kind, identity in identities]
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
        granted = self._ask([self.key(*k) for k in short], blocks, [self.limit_of(k[0]) for k in short])
        with self._lock:
            for k, want, got in zip(short, blocks, granted):
                lease = self._lease(k)
                lease.left += max(0, got - 1)  # one of them is this request's
                lease.block = min(self._max_block_of(k[0]), 2 * want) if got == want else 1
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

    def _ask(self, keys: list[str], blocks: list[int], limits: list[int]) -> list[int]:
        """Reserve ``blocks[i]`` counts of ``keys[i]`` (limit ``limits[i]``) in Redis; the counts granted."""
        # one script call reserves every identity's block: one round trip. The counters of one
        # request live in different slots, which only a single server allows in one script: on a
        # cluster each is reserved by its own call.
        if not isinstance(self.redis, RedisCluster):
            args = [WINDOW_S + 1]
            for block, limit in zip(blocks, limits):
                args += [block, limit]
            return [int(g) for g in self._reserve(keys=keys, args=args)]
        return [int(self._reserve(keys=[k], args=[WINDOW_S + 1, b, lim])[0])
                for k, b, lim in zip(keys, blocks, limits)]


#: the operations that hand out tokens (a game's seat tokens, a claimed seat's, a bot account's, a
#: person's of a challenge or match): counted against the address whatever token they present
TOKEN_MAKING_ENDPOINTS = frozenset({"games.create_game", "games.claim_seat", "arena.register_bot",
                                    "arena.create_challenge", "arena.create_match"})
#: tokens a process remembers as issued (by hash): the oldest are forgotten first
KNOWN_TOKENS = 10_000


def identities(address: str, token: str | None, issued: bool, endpoint: str | None) -> list[tuple[str, str]]:
    """The (kind, identity) counters one request counts against.

    ``issued``: the token is one this server issued for what the request asks about
    (``TokenCheck.issued``); a token that is not is counted as no token, so a client cannot
    dodge its address's limit by sending made-up ones.
    """
    # A request that presents a token this server issued is counted against that token, not its address.
    # Such a token is a seat token of the game it asks about, a bot account's token,
    # or a person's token of the match or challenge it asks about.
    # So bots and people behind one address (one machine, one NAT) each have their own budget,
    # and none can use up the others'.
    # A request without such a token is counted against its address.
    if not token or not issued:
        return [("addr", address)]
    # Tokens are free to make (create a game, register a bot), so two guards stay on the address.
    # All the token-bearing requests of one address together have a cap of their own:
    # ADDRESS_TOKENS_FACTOR times the limit, counted apart from the address's anonymous budget.
    # The routes that hand out tokens are counted against the address too, whatever the request presents.
    counted = [("token", token), ("addr-tokens", address)]
    if endpoint in TOKEN_MAKING_ENDPOINTS:
        counted.append(("addr", address))
    return counted


class TokenCheck:
    """Whether a request's token is one this server issued, for the counter it is counted against.

    Only the counter depends on it: the operation checks the token itself as it always does.
    A bot account's token counts on every route, a seat token on its game's.
    A person's token of a match or a challenge counts on that one's routes.
    """

    # What was found issued is remembered in this process (a digest, never the token).
    # What was not is never remembered: a seat may be claimed a moment later.
    # A token not remembered costs a Redis read or two, as the operation's own check would.

    def __init__(self, games, arena, known: int = KNOWN_TOKENS):
        self.games = games
        self.arena = arena
        self.known = known
        self._issued: OrderedDict[tuple[str, str], bool] = OrderedDict()
        self._lock = threading.Lock()

    def issued(self, token: str | None, view_args: dict | None) -> bool:
        if not token:
            return False
        digest = hash_token(token)
        args = view_args or {}
        scopes = [("bot", "")]
        if "game_id" in args:
            scopes.insert(0, ("game", str(args["game_id"])))
        elif "match_id" in args:
            scopes.append(("match", str(args["match_id"])))
        elif "challenge_id" in args:
            scopes.append(("challenge", str(args["challenge_id"])))
        with self._lock:
            for scope in scopes:
                if (scope, digest) in self._issued:
                    self._issued.move_to_end((scope, digest))
                    return True
        for scope in scopes:
            if self._lookup(scope, token, digest):
                with self._lock:
                    self._issued[(scope, digest)] = True
                    while len(self._issued) > self.known:
                        self._issued.popitem(last=False)
                return True
        return False

    def _lookup(self, scope: tuple[str, str], token: str, digest: str) -> bool:
        kind, item = scope
        if kind == "game":
            # the game's own cache remembers the seats of tokens it has seen (a bot's seat included)
            return self.games is not None and self.games.tokens.seat_of(item, token) is not None
        if self.arena is None:
            return False
        store = self.arena.store
        if kind == "bot":
            return store.bot_of_token(digest) is not None
        if kind == "match":
            return any(hmac.compare_digest(digest, h) for h in store.match_seat_tokens(item).values())
        challenge = store.challenge(item)
        stored = (challenge or {}).get("person_token_hash")
        return isinstance(stored, str) and hmac.compare_digest(digest, stored)
