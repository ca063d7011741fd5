"""The places of live streams: how many each client holds open at once, counted in Redis for every
API process (GINBOX_MAX_STREAMS_PER_CLIENT: one more stream is refused before its first byte).

A place is given back when its stream ends, however it ends; one whose process died lapses within
a minute (:data:`PLACE_LEASE_S`).
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import secrets
import threading
import time
from typing import Callable, Iterable

import redis

log = logging.getLogger(__name__)


#: how long a stream's place lasts unless its process renews it: a process that dies (kill -9,
#: a crash) renews nothing, and its streams stop counting against their clients this long after
PLACE_LEASE_S = 60.0
#: how often a process renews the places of the streams it holds open
PLACE_RENEW_S = 20.0

# KEYS[1]: one client's open streams, a sorted set (member "<start ms>:<random>", score: the
# end of its lease, ms). ARGV: now ms, the new lease's end ms, the member, the cap, the key's
# TTL ms. Drops the lapsed places, then refuses ({0, the oldest start ms}) or adds ({1, 0}).
_TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  local oldest = tonumber(ARGV[1])
  for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    local start = tonumber(string.match(member, '^(%d+):'))
    if start and start < oldest then oldest = start end
  end
  return {0, oldest}
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {1, 0}
"""


class Place:
    """The place of one open stream among its clients' (each counter it counts against)."""

    __slots__ = ("places", "keys", "member", "given_back")

    def __init__(self, places: "StreamPlaces", keys: list[str], member: str):
        self.places = places
        self.keys = keys
        self.member = member
        self.given_back = False

    def give_back(self) -> None:
        """Give the place back (once; a second call does nothing)."""
        if not self.given_back:
            self.given_back = True
            self.places.give_back(self)


class StreamPlaces:
    """The open streams of each client, counted in Redis so that every API process shares them.

    A client's counter is a sorted set of its open streams, each scored with the end of its lease
    (``lease_s``).
    While a stream is open its process renews its lease every ``renew_s`` seconds.
    It gives the place back when the stream ends.
    """

    def __init__(self, redis_client, prefix: str, cap: int, stream_max_s: float = 300.0,
                 lease_s: float = PLACE_LEASE_S, renew_s: float = PLACE_RENEW_S,
                 clock: Callable[[], float] = time.time):
        self.redis = redis_client
        self.prefix = prefix
        self.cap = cap
        self.stream_max_s = stream_max_s
        self.lease_ms = int(lease_s * 1000)
        self.renew_s = renew_s
        self.clock = clock
        self._take = redis_client.register_script(_TAKE)
        self._lock = threading.Lock()
        self._held: dict[str, set[str]] = {}  # counter key -> the members this process holds
        self._renewing_pid: int | None = None

    def key(self, kind: str, identity: str) -> str:
        """The counter of ``identity``'s open streams (hashed: a token never appears in Redis)."""
        digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:32]
        return f"{self.prefix}:streams:{kind}:{digest}"

    def take(self, counters: Iterable[tuple[str, str, int]]) -> tuple[Place | None, int]:
        """(a place, 0) if every (kind, identity, cap) counter has room, else (None, the seconds
        until the oldest of the full counter's streams ends at the latest)."""
        now = int(self.clock() * 1000)
        member = f"{now}:{secrets.token_hex(8)}"
        taken: list[str] = []
        try:
            for kind, identity, cap in counters:
                key = self.key(kind, identity)
                # Taking a place first drops the lapsed ones, then refuses if cap are left, else adds the stream.
                # That is one script, so two processes never both take the last place.
                ok, oldest = self._take(keys=[key], args=[now, now + self.lease_ms, member, cap, self.lease_ms])
                if not int(ok):
                    self._remove(taken, member)
                    ends = int(oldest) + self.stream_max_s * 1000
                    return None, max(1, min(math.ceil((ends - now) / 1000), math.ceil(self.stream_max_s)))
                taken.append(key)
        except BaseException:
            self._remove(taken, member)  # a place half taken is not kept (else it lapses)
            raise
        with self._lock:
            for key in taken:
                self._held.setdefault(key, set()).add(member)
            # The renewing is a thread of its own, started with the first stream.
            # A process that dies renews nothing, so its places lapse lease_s after its last renewal.
            self._start_renewing()
        return Place(self, taken, member), 0

    def give_back(self, place: Place) -> None:
        with self._lock:
            for key in place.keys:
                members = self._held.get(key)
                if members is not None:
                    members.discard(place.member)
                    if not members:
                        del self._held[key]
        self._remove(place.keys, place.member)

    def _remove(self, keys: list[str], member: str) -> None:
        if not keys:
            return
        try:
            pipe = self.redis.pipeline(transaction=False)
            for key in keys:
                pipe.zrem(key, member)
            pipe.execute()
        except (redis.RedisError, OSError) as exc:  # the place lapses with its lease
            log.debug("stream place not given back (it lapses): %s", exc)

    def held(self) -> int:
        """How many places this process holds (a stream counted twice, token and address, is two)."""
        with self._lock:
            return sum(len(members) for members in self._held.values())

    def renew(self) -> None:
        """Renew the lease of every place this process holds (its renewing thread calls this)."""
        with self._lock:
            held = {key: list(members) for key, members in self._held.items()}
        if not held:
            return
        until = int(self.clock() * 1000) + self.lease_ms
        try:
            pipe = self.redis.pipeline(transaction=False)
            for key, members in held.items():
                # XX: a place given back meanwhile is not put back
                pipe.zadd(key, dict.fromkeys(members, until), xx=True)
                pipe.pexpire(key, self.lease_ms)
            pipe.execute()
        except (redis.RedisError, OSError) as exc:
            log.warning("stream places not renewed: %s", " ".join(str(exc).split())[:200] or repr(exc))

    def _start_renewing(self) -> None:
        # one thread per process (a greenlet under gevent), started with its first stream: never
        # at import time, and again in a forked process, where the parent's thread does not run
        if self._renewing_pid == os.getpid():
            return
        self._renewing_pid = os.getpid()
        threading.Thread(target=self._renew_forever, name="stream-places", daemon=True).start()

    def _renew_forever(self) -> None:
        while True:
            time.sleep(self.renew_s)
            try:
                self.renew()
            except Exception:  # noqa: BLE001 (the thread must outlive any one failure)
                log.exception("renewing stream places failed")
