"""RedisEventStore: one Redis Stream per game, appended by one atomic Lua script.

Keys of one game share the hash tag ``{<game_id>}`` so that a game lives in one slot of a
Redis Cluster::

    <prefix>:{<game_id>}:stream   the events; entry id "<version>-1", fields e (JSON), ts (ms)
    <prefix>:{<game_id>}:meta     hash: version, status, variant, created, updated
    <prefix>:{<game_id>}:idem     hash: idempotency key -> "<version>:<fingerprint>"
    <prefix>:{<game_id>}:snap     sorted set: score version, member {"version", "state"} JSON

The game index lives under its own hash tag ``{#index}`` ('#' never occurs in a game id)::

    <prefix>:{#index}:all, :status:<s>, :variant:<v>, :sv:<s>:<v>
        sorted sets, all scores 0, members "<inverted created, 15 digits>:<game_id>", so that
        ZRANGEBYLEX walks the games newest first
    <prefix>:{#index}:where       hash: game id -> "<version>\\n<status>\\n<variant>\\n<created>",
        what the index currently says about the game

On a single Redis server the append script also updates the index, so index and logs never
disagree. A Redis Cluster cannot run one script over two slots, so there the index is brought
up to date right after each append (a compare-and-set script that only moves forward), and
``repair_index()`` rebuilds it from the meta hashes if a process died in between.

Nothing here trims, deletes or rewrites a stream entry.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import redis
from redis.cluster import RedisCluster

from service.store.base import (
    MAX_TS,
    Clock,
    EventStore,
    Recorded,
    canonical_json,
    check_filter,
    check_game_id,
    check_limit,
    check_version,
    decode_cursor,
    default_codec,
    encode_cursor,
    index_member,
    system_clock,
)
from service.store.errors import ConcurrencyError, IdempotencyConflict, StoreError

log = logging.getLogger(__name__)

INDEX_TAG = "{#index}"

# Moves a game's member between index sets. Shared by both scripts below.
_LUA_INDEX_MOVE = """
local function index_move(where_key, gid, old_keys, old_member, new_keys, new_member, new_where)
  for _, k in ipairs(old_keys) do redis.call('ZREM', k, old_member) end
  for _, k in ipairs(new_keys) do redis.call('ZADD', k, 0, new_member) end
  redis.call('HSET', where_key, gid, new_where)
end
"""

# KEYS: stream, meta, idem
# ARGV: expected version, idempotency key ('' none), fingerprint, ts, status ('' keep),
#       variant ('' keep), created ('' = ts of the first append), index prefix ('' = the index
#       is updated by the caller), game id, event JSON...
_LUA_APPEND = _LUA_INDEX_MOVE + """
local function index_keys(idx, status, variant)
  local keys = {idx .. 'all'}
  if status ~= '' then table.insert(keys, idx .. 'status:' .. status) end
  if variant ~= '' then table.insert(keys, idx .. 'variant:' .. variant) end
  if status ~= '' and variant ~= '' then table.insert(keys, idx .. 'sv:' .. status .. ':' .. variant) end
  return keys
end

local function member(created, gid)
  return string.format('%015d', MAX_TS - tonumber(created)) .. ':' .. gid
end

local stream, meta, idem = KEYS[1], KEYS[2], KEYS[3]
local expected, key, fp, ts = tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4]

-- the idempotency key before the version: a retried append answers what it answered first
if key ~= '' then
  local seen = redis.call('HGET', idem, key)
  if seen then
    local sep = string.find(seen, ':', 1, true)
    local seen_version, seen_fp = string.sub(seen, 1, sep - 1), string.sub(seen, sep + 1)
    if seen_fp == fp then return {'idem', seen_version} end
    return {'idem_conflict', seen_version, seen_fp}
  end
end

local actual = tonumber(redis.call('HGET', meta, 'version') or '0')
if actual ~= expected then return {'conflict', tostring(actual)} end

local version = actual
for i = 10, #ARGV do
  version = version + 1
  redis.call('XADD', stream, version .. '-1', 'e', ARGV[i], 'ts', ts)
end
if key ~= '' then redis.call('HSET', idem, key, version .. ':' .. fp) end

local old = redis.call('HMGET', meta, 'status', 'variant', 'created')
local status = ARGV[5] ~= '' and ARGV[5] or (old[1] or '')
local variant = ARGV[6] ~= '' and ARGV[6] or (old[2] or '')
local created = old[3] or (ARGV[7] ~= '' and ARGV[7] or ts)
local fields = {'version', version, 'updated', ts, 'created', created}
if status ~= '' then table.insert(fields, 'status'); table.insert(fields, status) end
if variant ~= '' then table.insert(fields, 'variant'); table.insert(fields, variant) end
redis.call('HSET', meta, unpack(fields))

local idx = ARGV[8]
if idx ~= '' then
  -- one server: keys of the index are named here (a cluster client never takes this path)
  local gid = ARGV[9]
  local where_key = idx .. 'where'
  local new_where = version .. '\\n' .. status .. '\\n' .. variant .. '\\n' .. created
  local was = redis.call('HGET', where_key, gid)
  local old_keys, old_member = {}, ''
  local parts = {}
  if was then
    for part in string.gmatch(was .. '\\n', '([^\\n]*)\\n') do table.insert(parts, part) end
  end
  if was and parts[2] == status and parts[3] == variant and parts[4] == tostring(created) then
    -- most appends change neither status nor variant: the game stays in the same sets
    redis.call('HSET', where_key, gid, new_where)
  else
    if was then old_keys, old_member = index_keys(idx, parts[2], parts[3]), member(parts[4], gid) end
    index_move(where_key, gid, old_keys, old_member, index_keys(idx, status, variant), member(created, gid), new_where)
  end
end
return {'ok', tostring(version)}
""".replace("MAX_TS", str(MAX_TS))

# KEYS: where, old index keys..., new index keys...
# ARGV: game id, where value expected now ('' none), new where value, number of old keys,
#       old member, new member
_LUA_INDEX = _LUA_INDEX_MOVE + """
local gid, expected, new_where, n_old = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local now = redis.call('HGET', KEYS[1], gid) or ''
if now ~= expected then return 'retry' end
local old_keys, new_keys = {}, {}
for i = 2, 1 + n_old do table.insert(old_keys, KEYS[i]) end
for i = 2 + n_old, #KEYS do table.insert(new_keys, KEYS[i]) end
index_move(KEYS[1], gid, old_keys, ARGV[5], new_keys, ARGV[6], new_where)
return 'ok'
"""

# KEYS: meta, snap   ARGV: version, snapshot JSON
_LUA_SNAPSHOT = """
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
local version = tonumber(ARGV[1])
if version < 1 or version > current then return current end
redis.call('ZREMRANGEBYSCORE', KEYS[2], version, version)
redis.call('ZADD', KEYS[2], version, ARGV[2])
return -1
"""


def _s(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


class RedisEventStore(EventStore):
    """The EventStore on Redis (a single server or a RedisCluster client)."""

    def __init__(
        self,
        redis_client,
        codec=None,
        prefix: str = "ginbox",
        clock: Clock | None = None,
        *,
        inline_index: bool | None = None,
    ):
        if not prefix or any(c in prefix for c in "{}"):
            raise ValueError(f"invalid key prefix {prefix!r}")
        self.redis = redis_client
        self.codec = codec if codec is not None else default_codec()
        self.prefix = prefix
        self.clock = clock or system_clock
        # inline_index=False forces the cluster way on a single server (the tests use it)
        self.inline_index = (not isinstance(redis_client, RedisCluster)) if inline_index is None else inline_index
        self._append_script = redis_client.register_script(_LUA_APPEND)
        self._index_script = redis_client.register_script(_LUA_INDEX)
        self._snapshot_script = redis_client.register_script(_LUA_SNAPSHOT)

    # -- key names -----------------------------------------------------------------------------

    def _key(self, game_id: str, kind: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:{kind}"

    @property
    def _index_prefix(self) -> str:
        return f"{self.prefix}:{INDEX_TAG}:"

    def _index_keys(self, status: str, variant: str) -> list[str]:
        """The index sets a game with this status and variant belongs to (as in the Lua)."""
        idx = self._index_prefix
        keys = [idx + "all"]
        if status:
            keys.append(f"{idx}status:{status}")
        if variant:
            keys.append(f"{idx}variant:{variant}")
        if status and variant:
            keys.append(f"{idx}sv:{status}:{variant}")
        return keys

    # -- writing -------------------------------------------------------------------------------

    def append(self, game_id, events, expected_version, idempotency_key=None, *, fingerprint=None, meta=None) -> int:
        _, payloads, fingerprint, meta = self._prepare_append(
            game_id, events, expected_version, idempotency_key, fingerprint, meta
        )
        args = [
            expected_version,
            idempotency_key or "",
            fingerprint,
            self.clock(),
            meta.get("status", ""),
            meta.get("variant", ""),
            meta.get("created", ""),
            self._index_prefix if self.inline_index else "",
            game_id,
            *payloads,
        ]
        keys = [self._key(game_id, "stream"), self._key(game_id, "meta"), self._key(game_id, "idem")]
        reply = [_s(part) for part in self._append_script(keys=keys, args=args)]
        outcome = reply[0]
        if outcome == "conflict":
            raise ConcurrencyError(game_id, expected_version, int(reply[1]))
        if outcome == "idem_conflict":
            raise IdempotencyConflict(game_id, idempotency_key, reply[2], int(reply[1]))
        if outcome not in ("ok", "idem"):
            raise StoreError(f"unexpected reply from the append script: {reply!r}")
        if not self.inline_index:
            # also after a replayed append: the first attempt may have died before this step
            try:
                self._sync_index(game_id, at_least=int(reply[1]))
            except (redis.RedisError, StoreError):
                log.warning("index of game %s not updated; repair_index() will", game_id, exc_info=True)
        return int(reply[1])

    def idempotent_result(self, game_id, key):
        check_game_id(game_id)
        seen = self.redis.hget(self._key(game_id, "idem"), key)
        if seen is None:
            return None
        version, _, fingerprint = _s(seen).partition(":")
        return fingerprint, int(version)

    # -- reading -------------------------------------------------------------------------------

    def load(self, game_id, after=0, upto=None) -> list[Recorded]:
        check_game_id(game_id)
        check_version("after", after)
        if upto is not None:
            check_version("upto", upto)
            if upto <= after:
                return []
        entries = self.redis.xrange(
            self._key(game_id, "stream"), min=f"{after + 1}-1", max="+" if upto is None else f"{upto}-1"
        )
        return [self._from_entry(entry_id, fields) for entry_id, fields in entries]

    def tail(self, game_id, known) -> list[Recorded] | None:
        check_game_id(game_id)
        check_version("known", known)
        if known < 1:
            raise ValueError("known must be >= 1 (a state the log recorded)")
        # one XRANGE from event ``known`` itself: its presence is the check, the rest is the tail
        entries = self.redis.xrange(self._key(game_id, "stream"), min=f"{known}-1", max="+")
        if not entries or _s(entries[0][0]) != f"{known}-1":
            return None
        return [self._from_entry(entry_id, fields) for entry_id, fields in entries[1:]]

    def _from_entry(self, entry_id, fields) -> Recorded:
        fields = {_s(k): v for k, v in fields.items()}
        version = int(_s(entry_id).split("-", 1)[0])
        return self._recorded(version, int(fields["ts"]), fields["e"])

    def version(self, game_id) -> int:
        check_game_id(game_id)
        return int(self.redis.hget(self._key(game_id, "meta"), "version") or 0)

    def wait_for_events(self, game_id, after, timeout_s) -> list[Recorded]:
        check_game_id(game_id)
        check_version("after", after)
        stream = self._key(game_id, "stream")
        # block in slices shorter than the client's socket timeout, which would otherwise
        # break a long XREAD BLOCK
        socket_timeout = self._socket_timeout()
        slice_s = 5.0 if socket_timeout is None else max(0.05, socket_timeout * 0.5)
        deadline = time.monotonic() + max(0.0, timeout_s)
        while True:
            remaining = deadline - time.monotonic()
            block_ms = int(min(remaining, slice_s) * 1000)
            if block_ms >= 1:
                reply = self.redis.xread({stream: f"{after}-1"}, block=block_ms)
            else:
                reply = self.redis.xread({stream: f"{after}-1"})
            entries = self._xread_entries(reply)
            if entries:
                return [self._from_entry(entry_id, fields) for entry_id, fields in entries]
            if block_ms < 1:
                return []

    @staticmethod
    def _xread_entries(reply) -> list:
        if not reply:
            return []
        if isinstance(reply, dict):  # RESP3: {stream: [[entries]]}
            return [entry for groups in reply.values() for entries in groups for entry in entries]
        return [entry for _, entries in reply for entry in entries]  # RESP2: [[stream, [entries]]]

    def _socket_timeout(self) -> float | None:
        if isinstance(self.redis, RedisCluster):
            kwargs = self.redis.get_connection_kwargs()
        else:
            kwargs = self.redis.connection_pool.connection_kwargs
        return kwargs.get("socket_timeout")

    # -- snapshots -----------------------------------------------------------------------------

    def save_snapshot(self, game_id, version, state) -> None:
        check_game_id(game_id)
        check_version("version", version)
        payload = canonical_json({"version": version, "state": state})
        current = self._snapshot_script(
            keys=[self._key(game_id, "meta"), self._key(game_id, "snap")], args=[version, payload]
        )
        if int(current) >= 0:
            raise ValueError(f"snapshot version {version} outside 1..{current} of game {game_id!r}")

    def latest_snapshot(self, game_id, upto=None):
        check_game_id(game_id)
        found = self.redis.zrevrangebyscore(
            self._key(game_id, "snap"), "+inf" if upto is None else upto, "-inf", start=0, num=1
        )
        if not found:
            return None
        snapshot = json.loads(found[0])
        return snapshot["version"], snapshot["state"]

    def delete_snapshots(self, game_id) -> None:
        check_game_id(game_id)
        self.redis.delete(self._key(game_id, "snap"))

    # -- the game index ------------------------------------------------------------------------

    def list_games(self, status=None, variant=None, cursor=None, limit=50):
        check_limit(limit)
        check_filter("status", status)
        check_filter("variant", variant)
        start = "(" + decode_cursor(cursor) if cursor is not None else "-"
        idx = self._index_prefix
        if status and variant:
            key = f"{idx}sv:{status}:{variant}"
        elif status:
            key = f"{idx}status:{status}"
        elif variant:
            key = f"{idx}variant:{variant}"
        else:
            key = idx + "all"
        members = [_s(m) for m in self.redis.zrangebylex(key, start, "+", start=0, num=limit + 1)]
        page = members[:limit]
        pipe = self.redis.pipeline(transaction=False)
        for member in page:
            pipe.hmget(self._key(member.partition(":")[2], "meta"), "version", "status", "variant", "created", "updated")
        summaries = []
        for member, row in zip(page, pipe.execute()):
            version, row_status, row_variant, created, updated = (_s(v) if v is not None else None for v in row)
            # on a cluster the index may trail the meta for a moment: the meta is the truth
            if version is None or (status and row_status != status) or (variant and row_variant != variant):
                continue
            summaries.append(
                {
                    "game_id": member.partition(":")[2],
                    "variant": row_variant,
                    "status": row_status,
                    "created": int(created),
                    "updated": int(updated),
                    "version": int(version),
                }
            )
        next_cursor = encode_cursor(page[-1]) if len(members) > limit else None
        return summaries, next_cursor

    def _sync_index(self, game_id: str, at_least: int = 0, force: bool = False, attempts: int = 50) -> bool:
        """Make the index say what the game's meta hash says; True if this call wrote it.

        The index only moves forward: an entry written for a later version is never replaced
        by an earlier one, so concurrent writers converge on the newest meta. Once the index
        holds version ``at_least`` or later, there is nothing left for this caller to do.
        """
        where_key = self._index_prefix + "where"
        for _ in range(attempts):
            version, status, variant, created = (
                _s(v) if v is not None else None
                for v in self.redis.hmget(self._key(game_id, "meta"), "version", "status", "variant", "created")
            )
            if version is None:
                return False
            status, variant = status or "", variant or ""
            new_where = f"{version}\n{status}\n{variant}\n{created}"
            was = _s(self.redis.hget(where_key, game_id) or b"")
            old_keys, old_member = [], ""
            if was:
                was_version, was_status, was_variant, was_created = was.split("\n")
                if int(was_version) > int(version) or (not force and (was == new_where or int(was_version) >= at_least > 0)):
                    return False
                old_keys, old_member = self._index_keys(was_status, was_variant), index_member(int(was_created), game_id)
            reply = self._index_script(
                keys=[where_key, *old_keys, *self._index_keys(status, variant)],
                args=[game_id, was, new_where, len(old_keys), old_member, index_member(int(created), game_id)],
            )
            if _s(reply) == "ok":
                return True
        raise StoreError(f"index of game {game_id!r} kept changing during {attempts} attempts")

    def repair_index(self) -> int:
        """Rewrite every game's index entry from its meta hash; return how many games were seen."""
        seen = 0
        suffix = "}:meta"
        for key in self.redis.scan_iter(match=f"{self.prefix}:{{*}}:meta", count=500):
            key = _s(key)
            game_id = key[len(self.prefix) + 2 : -len(suffix)]
            if self._key(game_id, "meta") != key:
                continue
            self._sync_index(game_id, force=True)
            seen += 1
        return seen
