"""The decision analyses of finished games: one record per (game, analysis version), apart from the log.

A record holds the analysis's status (queued, running, done, failed), its progress and, once done,
the result's JSON. Once done it never changes: a second run of the job writes nothing over it.
``InMemoryAnalyses`` keeps the same records in dicts, for the use-case tests.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time

from service.store.redis_index import check_prefix, game_key, text

#: statuses of a record; a done one is final
QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
#: the largest result a record holds (a game of MAX_DECISIONS decisions takes about 1 MB)
MAX_RESULT_BYTES = 4 * 1024 * 1024
#: a record expires this long after it was last written (the game's export can make it again)
KEEP_MS = 30 * 24 * 3600 * 1000
#: a claim on a cap whose record is gone (expired, or never written) counts no longer than this
CLAIM_STALE_MS = 60_000
#: the longest error text a failed record keeps
MAX_ERROR_CHARS = 300

# One script per step, each on the record's key alone (a Redis Cluster slot: the game's).
# KEYS[1]: the record. ARGV: the status to write, ms now, keep ms, then field/value pairs.
# A done record is never written over: the script answers 0 and writes nothing.
_WRITE = """
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'done' then return 0 end
if ARGV[4] == 'create' and status and status ~= 'failed' then return 0 end
if ARGV[4] == 'update' and not status then return 0 end
if ARGV[4] == 'create' then redis.call('DEL', KEYS[1]) end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updated', ARGV[2])
for i = 5, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""

# KEYS[1]: a cap's set; ARGV: cap, game id, now ms, keep ms. 0 (nothing written) when full.
_CLAIM = """
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""


class ResultTooLarge(ValueError):
    """A result over MAX_RESULT_BYTES: the record is marked failed instead."""


def _now_ms() -> int:
    return int(time.time() * 1000)


def _record(fields: dict) -> dict | None:
    """A record as the store answers it: status, progress, the result (parsed) when done."""
    if not fields:
        return None
    f = {text(k): text(v) for k, v in fields.items()}
    out = {"status": f["status"], "done": int(f.get("done", 0)), "total": int(f.get("total", 0)),
           "requested": int(f.get("requested", 0)), "updated": int(f.get("updated", 0))}
    if "error" in f:
        out["error"] = f["error"]
    if f["status"] == DONE and "result" in f:
        out["result"] = json.loads(f["result"])
    return out


class AnalysisRecords:
    """The steps of a record and of the caps, written once; a backend gives ``_write``, ``_read``,
    ``_take``, ``_drop`` and ``_members``."""

    prefix: str
    version: int

    # The keys:
    #
    #     <prefix>:{<game_id>}:analysis:v<version>   hash: status, done, total, requested, updated, error, result
    #     <prefix>:analyses:<caller>                  sorted set: game id -> when its analysis was asked for (ms)
    #     <prefix>:analyses-queued                    the same, for every caller
    def key(self, game_id: str) -> str:
        return game_key(self.prefix, game_id, f"analysis:v{self.version}")

    def caller_key(self, caller: str) -> str:
        return f"{self.prefix}:analyses:{caller}"

    @property
    def server_key(self) -> str:
        return f"{self.prefix}:analyses-queued"

    def _guard(self):
        return contextlib.nullcontext()

    def get(self, game_id: str) -> dict | None:
        """The game's record, or None."""
        return _record(self._read(game_id))

    def progress_of(self, game_id: str) -> dict | None:
        """The game's record without its result (what a progress stream polls), or None."""
        fields = {text(k): text(v) for k, v in self._read_some(game_id, ("status", "done", "total", "error")).items()
                  if v is not None}
        if "status" not in fields:
            return None
        out = {"status": fields["status"], "done": int(fields.get("done", 0)), "total": int(fields.get("total", 0))}
        if "error" in fields:
            out["error"] = fields["error"]
        return out

    def create(self, game_id: str, now_ms: int | None = None) -> bool:
        """A queued record, unless one exists that has not failed; True when written."""
        now = _now_ms() if now_ms is None else now_ms
        return self._write(game_id, QUEUED, now, "create", {"done": 0, "total": 0, "requested": now})

    def progress(self, game_id: str, done: int, total: int) -> bool:
        """Mark the record running, ``done`` decisions of ``total``; False (nothing written) once done."""
        return self._write(game_id, RUNNING, _now_ms(), "update", {"done": done, "total": total})

    def finish(self, game_id: str, result: dict) -> bool:
        """Store the result, once: False and nothing written when the record is done already (or gone)."""
        body = json.dumps(result, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        if len(body.encode("utf-8")) > MAX_RESULT_BYTES:
            raise ResultTooLarge(f"the result takes {len(body)} bytes, over {MAX_RESULT_BYTES}")
        # the positions decided, as the progress counted them (a knock's arrangement has an entry of its own)
        n = sum(1 for d in result.get("decisions", ()) if d.get("kind") != "arrangement")
        return self._write(game_id, DONE, _now_ms(), "update", {"result": body, "done": n, "total": n})

    def fail(self, game_id: str, error: str) -> bool:
        """Mark the record failed with why; False (nothing written) when it is done."""
        return self._write(game_id, FAILED, _now_ms(), "update", {"error": error[:MAX_ERROR_CHARS]})

    def claim(self, caller: str, game_id: str, cap: int, server_cap: int, now_ms: int) -> str | None:
        """Count the game's analysis against ``caller`` and the server: None once counted, else the
        count that refused it ("caller" or "server"), writing nothing. A cap of 0: no cap."""
        with self._guard():
            if cap > 0 and not self._take(self.caller_key(caller), cap, game_id, now_ms):
                return "caller"
            if server_cap > 0 and not self._take(self.server_key, server_cap, game_id, now_ms):
                if cap > 0:
                    self._drop(self.caller_key(caller), [game_id])
                return "server"
            return None

    def release(self, caller: str, game_id: str) -> None:
        """Uncount an analysis that was claimed and then not queued."""
        with self._guard():
            self._drop(self.caller_key(caller), [game_id])
            self._drop(self.server_key, [game_id])

    def queued(self, caller: str | None, now_ms: int) -> list[str]:
        """The games whose analysis counts against ``caller`` (None: the server), those finished dropped."""
        with self._guard():
            return self._live(self.server_key if caller is None else self.caller_key(caller), now_ms)

    # A count is never told that an analysis ended: each claim first drops the games whose record is
    # done or failed, and those whose record is gone once their claim is CLAIM_STALE_MS old.
    def _live(self, key: str, now_ms: int) -> list[str]:
        claims = self._members(key)
        gone = []
        for game_id, claimed in claims:
            status = self._status(game_id)
            if status in (DONE, FAILED) or (status is None and now_ms - claimed >= CLAIM_STALE_MS):
                gone.append(game_id)
        if gone:
            self._drop(key, gone)
        return [g for g, _ in claims if g not in gone]

    def _status(self, game_id: str) -> str | None:
        fields = self._read(game_id)
        status = fields.get("status", fields.get(b"status"))
        return None if status is None else text(status)

    def _write(self, game_id: str, status: str, now_ms: int, mode: str, fields: dict) -> bool:
        raise NotImplementedError

    def _read(self, game_id: str) -> dict:
        raise NotImplementedError

    def _read_some(self, game_id: str, names: tuple[str, ...]) -> dict:
        raise NotImplementedError

    def _members(self, key: str) -> list[tuple[str, int]]:
        raise NotImplementedError

    def _take(self, key: str, cap: int, game_id: str, now_ms: int) -> bool:
        raise NotImplementedError

    def _drop(self, key: str, game_ids: list[str]) -> None:
        raise NotImplementedError


class RedisAnalyses(AnalysisRecords):
    """The records as hashes on Redis, in the game's hash slot; the caps as sorted sets."""

    def __init__(self, redis, prefix: str = "ginbox", version: int = 1, *, keep_ms: int = KEEP_MS):
        self.redis = redis
        self.prefix = check_prefix(prefix)
        self.version = version
        self.keep_ms = keep_ms
        self._write_script = redis.register_script(_WRITE)
        self._claim_script = redis.register_script(_CLAIM)

    def _write(self, game_id, status, now_ms, mode, fields) -> bool:
        args = [status, now_ms, self.keep_ms, mode]
        for k, v in fields.items():
            args += [k, v]
        return bool(int(self._write_script(keys=[self.key(game_id)], args=args)))

    def _read(self, game_id: str) -> dict:
        return self.redis.hgetall(self.key(game_id))

    def _read_some(self, game_id: str, names: tuple[str, ...]) -> dict:
        return dict(zip(names, self.redis.hmget(self.key(game_id), list(names))))

    def _members(self, key: str) -> list[tuple[str, int]]:
        return [(text(g), int(ms)) for g, ms in self.redis.zrange(key, 0, -1, withscores=True)]

    def _take(self, key, cap, game_id, now_ms) -> bool:
        self._live(key, now_ms)
        return bool(int(self._claim_script(keys=[key], args=[cap, game_id, now_ms, self.keep_ms])))

    def _drop(self, key, game_ids) -> None:
        self.redis.zrem(key, *game_ids)


class InMemoryAnalyses(AnalysisRecords):
    """The same records and caps in dicts (no expiry), for the use-case tests."""

    def __init__(self, prefix: str = "ginbox", version: int = 1):
        self.prefix = check_prefix(prefix)
        self.version = version
        self._records: dict[str, dict] = {}
        self._sets: dict[str, dict[str, int]] = {}
        self._lock = threading.RLock()

    def _guard(self):
        return self._lock

    def _write(self, game_id, status, now_ms, mode, fields) -> bool:
        with self._lock:
            old = self._records.get(game_id)
            have = old["status"] if old else None
            if have == DONE or (mode == "create" and have not in (None, FAILED)) or (mode == "update" and not have):
                return False
            rec = {} if mode == "create" else dict(old)
            rec.update({k: str(v) for k, v in fields.items()}, status=status, updated=str(now_ms))
            self._records[game_id] = rec
            return True

    def _read(self, game_id: str) -> dict:
        with self._lock:
            return dict(self._records.get(game_id, {}))

    def _read_some(self, game_id: str, names: tuple[str, ...]) -> dict:
        with self._lock:
            record = self._records.get(game_id, {})
            return {n: record.get(n) for n in names}

    def _members(self, key: str) -> list[tuple[str, int]]:
        return sorted(self._sets.get(key, {}).items(), key=lambda kv: (kv[1], kv[0]))

    def _take(self, key, cap, game_id, now_ms) -> bool:
        self._live(key, now_ms)
        members = self._sets.setdefault(key, {})
        if game_id in members:
            return True
        if len(members) >= cap:
            return False
        members[game_id] = now_ms
        return True

    def _drop(self, key, game_ids) -> None:
        members = self._sets.get(key, {})
        for g in game_ids:
            members.pop(g, None)
