"""The advice log: the advisor's messages of a three-hand game, beside the game's event log.

It is append-only, and the game's version never moves for it.
An entry's key ``<version>-<seq>`` is the game version it was given at and its rank there.
An append holds at most ``limit`` pieces per version.
Once the game is over and archived, the game's archived record holds its advice log too
(:meth:`service.store.redis_store.RedisEventStore.archive`), and reads give the same pieces.
"""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from service.store.base import Clock, canonical_json, check_game_id, system_clock
from service.store.errors import ConcurrencyError, IdempotencyConflict, StoreError


class AdviceLimitReached(StoreError):
    """The advice given at this version already reached the limit."""

    def __init__(self, game_id: str, version: int, limit: int):
        super().__init__(f"game {game_id}: {limit} pieces of advice were already given at version {version}")
        self.game_id, self.version, self.limit = game_id, version, limit


@dataclass(frozen=True)
class AdviceRecord:
    """One piece of advice as recorded: the game version it was given at, its rank there, when, what."""

    version: int
    seq: int
    ts: int
    entry: dict

    def as_dict(self) -> dict:
        """The entry with its place in the game: ``version``, ``seq`` and ``ts`` added."""
        return {**self.entry, "version": self.version, "seq": self.seq, "ts": self.ts}


# Advice changes nothing in play, and only the captain and the advisor may see it while the game runs.
# Were it an event of the game's log, each piece would move the game's version.
# The players' If-Match moves would then fail under a stream of advice.
# And the box (who may not see advice) would learn when it was given from versions it cannot account for.
# So advice has a log of its own, append-only like the game's, and the game's version never moves for it.
class AdviceLog(ABC):
    """Append-only advice per game, bounded per game version."""

    @abstractmethod
    def give(self, game_id: str, version: int, entry: dict, limit: int,
             idempotency_key: str | None = None, fingerprint: str = "") -> AdviceRecord:
        """Record ``entry`` at ``version``, the game's current version.

        Raises ConcurrencyError if the game is at another version, AdviceLimitReached if ``limit``
        pieces were already given at this version, IdempotencyConflict if the key was used for
        another request. The same key and fingerprint again returns the first record.
        """

    @abstractmethod
    def read(self, game_id: str, after: tuple[int, int] | None = None) -> list[AdviceRecord]:
        """The game's advice in the order given; with ``after`` (version, seq), only what came later."""


# -- Redis ---------------------------------------------------------------------------------------

# Redis keys (hash tag of the game, so a game's keys stay in one Cluster slot):
#
#     <prefix>:{<game_id>}:advice        stream: id "<version>-<seq>", field a (JSON entry)
#     <prefix>:{<game_id>}:advice-idem   hash: idempotency key -> "<version>-<seq>:<fingerprint>"
#     <prefix>:{<game_id>}:archive       the game's archived record, which holds the advice once the
#                                        stream is dropped (service.store.redis_store)
#
# An entry's key <version>-<seq> is also its Redis Stream id.
# The append itself checks the limit of pieces per version.
# An append names the game version the advice was decided on.
# If the game has moved on since, it is refused, and the service checks the advice again on the new state.
# So every entry is tied to a state where the engine allowed it.
# The game's current version is read from the event store's meta hash (<prefix>:{<game_id>}:meta,
# field version), in the same script.

# KEYS: advice stream, advice idem, game meta
# ARGV: expected version, limit, idempotency key ('' none), fingerprint, entry JSON, ts
_LUA_GIVE = """
local stream, idem, meta = KEYS[1], KEYS[2], KEYS[3]
local expected, limit, key, fp = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
if key ~= '' then
  local seen = redis.call('HGET', idem, key)
  if seen then
    local sep = string.find(seen, ':', 1, true)
    local seen_id, seen_fp = string.sub(seen, 1, sep - 1), string.sub(seen, sep + 1)
    if seen_fp ~= fp then return {'idem_conflict', seen_id} end
    local got = redis.call('XRANGE', stream, seen_id, seen_id)
    return {'idem', seen_id, got[1][2][2], got[1][2][4]}
  end
end
local actual = tonumber(redis.call('HGET', meta, 'version') or '0')
if actual ~= expected then return {'conflict', tostring(actual)} end
local seq = 0
local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)
if #last > 0 then
  local dash = string.find(last[1][1], '-', 1, true)
  if tonumber(string.sub(last[1][1], 1, dash - 1)) == expected then
    seq = tonumber(string.sub(last[1][1], dash + 1)) + 1
  end
end
if seq >= limit then return {'limit', tostring(seq)} end
local id = expected .. '-' .. seq
redis.call('XADD', stream, id, 'a', ARGV[5], 'ts', ARGV[6])
if key ~= '' then redis.call('HSET', idem, key, id .. ':' .. fp) end
return {'ok', id, ARGV[5], ARGV[6]}
"""


def _s(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


def _record(entry_id: str, entry_json: str, ts: str) -> AdviceRecord:
    version, _, seq = entry_id.partition("-")
    return AdviceRecord(int(version), int(seq), int(ts), json.loads(entry_json))


class RedisAdviceLog(AdviceLog):
    """The advice log on Redis: one Stream per game, appended by one script that checks the game's version."""

    def __init__(self, redis_client, prefix: str = "ginbox", clock: Clock | None = None, archives=None):
        self.redis = redis_client
        self.prefix = prefix
        self.clock = clock or system_clock
        self._give_script = redis_client.register_script(_LUA_GIVE)
        #: the decoded records of archived games (service.store.archives.DecodedArchives), shared with
        #: the event store's when given
        if archives is None:
            from service.store.archives import DecodedArchives

            archives = DecodedArchives()
        self.archives = archives

    def _key(self, game_id: str, kind: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:{kind}"

    def give(self, game_id, version, entry, limit, idempotency_key=None, fingerprint=""):
        check_game_id(game_id)
        keys = [self._key(game_id, "advice"), self._key(game_id, "advice-idem"), self._key(game_id, "meta")]
        args = [version, limit, idempotency_key or "", fingerprint, canonical_json(entry), self.clock()]
        reply = [_s(part) for part in self._give_script(keys=keys, args=args)]
        if reply[0] in ("ok", "idem"):
            return _record(reply[1], reply[2], reply[3])
        if reply[0] == "conflict":
            raise ConcurrencyError(game_id, version, int(reply[1]))
        if reply[0] == "limit":
            raise AdviceLimitReached(game_id, version, limit)
        if reply[0] == "idem_conflict":
            raise IdempotencyConflict(game_id, idempotency_key, "", int(reply[1].partition("-")[0]))
        raise StoreError(f"unexpected reply from the advice script: {reply!r}")

    def read(self, game_id, after=None):
        check_game_id(game_id)
        low = "-" if after is None else f"({after[0]}-{after[1]}"
        # the game's archived record in the same round trip: once archived, it holds the advice
        pipe = self.redis.pipeline(transaction=False)
        pipe.xrange(self._key(game_id, "advice"), min=low, max="+")
        pipe.get(self._key(game_id, "archive"))
        entries, record = pipe.execute()
        if not entries and record is not None and not self.redis.exists(self._key(game_id, "advice")):
            pieces = self.archives.entries(game_id, record).advice
            return [AdviceRecord(p.version, p.seq, p.ts, json.loads(p.entry)) for p in pieces
                    if after is None or (p.version, p.seq) > tuple(after)]
        out = []
        for entry_id, fields in entries:
            fields = {_s(k): _s(v) for k, v in fields.items()}
            out.append(_record(_s(entry_id), fields["a"], fields["ts"]))
        return out


# -- in memory -----------------------------------------------------------------------------------

class InMemoryAdviceLog(AdviceLog):
    """The advice log in a dict, for unit tests; reads the game's version from an in-memory event store."""

    def __init__(self, store, clock: Clock | None = None):
        self.store = store
        self.clock = clock or system_clock
        self._logs: dict[str, list[AdviceRecord]] = {}
        self._keys: dict[tuple[str, str], tuple[AdviceRecord, str]] = {}
        self._lock = threading.Lock()

    def give(self, game_id, version, entry, limit, idempotency_key=None, fingerprint=""):
        check_game_id(game_id)
        with self._lock:
            if idempotency_key is not None and (game_id, idempotency_key) in self._keys:
                record, seen_fp = self._keys[(game_id, idempotency_key)]
                if seen_fp != fingerprint:
                    raise IdempotencyConflict(game_id, idempotency_key, "", record.version)
                return record
            actual = self.store.version(game_id)
            if actual != version:
                raise ConcurrencyError(game_id, version, actual)
            log = self._logs.setdefault(game_id, [])
            seq = sum(1 for r in log if r.version == version)
            if seq >= limit:
                raise AdviceLimitReached(game_id, version, limit)
            record = AdviceRecord(version, seq, self.clock(), json.loads(canonical_json(entry)))
            log.append(record)
            if idempotency_key is not None:
                self._keys[(game_id, idempotency_key)] = (record, fingerprint)
            return record

    def read(self, game_id, after=None):
        check_game_id(game_id)
        with self._lock:
            log = list(self._logs.get(game_id, ()))
        if after is None:
            return log
        return [r for r in log if (r.version, r.seq) > tuple(after)]
