"""RedisEventStore: one Redis Stream per game, appended by one atomic Lua script.

Keys of one game share the hash tag ``{<game_id>}``.
The snapshots (``:snap``, :mod:`service.store.redis_snapshots`) and the game index
(``{#index}``, :mod:`service.store.redis_index`) are derived data with interfaces of their own.
Nothing here trims or rewrites a stream entry.
Once a game is over, :meth:`RedisEventStore.archive` replaces its stream by its archived record
(``:archive``), from which every read gives the same events.
"""

from __future__ import annotations

import logging

import redis
from redis.cluster import RedisCluster

from service.store.base import (
    Appended,
    Clock,
    EventStore,
    Recorded,
    canonical_json,
    check_game_id,
    check_version,
    default_codec,
    system_clock,
)
from service.store.archives import DecodedArchives, check_codec, encode_log
from service.store.errors import ConcurrencyError, GameNotArchivable, IdempotencyConflict, StoreError
from service.store.redis_index import LUA_INDEX_FUNCTIONS, RedisGameIndex, check_prefix, game_key
from service.store.redis_wait import xread_waiting
from service.store.redis_index import text as _s

log = logging.getLogger(__name__)

# A game's keys share its hash tag so that a game lives in one slot of a Redis Cluster:
#
#     <prefix>:{<game_id>}:stream   the events; entry id "<version>-<ts>" (ts: when it was appended,
#                                   ms since the epoch), field e: the event (service.rules.codec's
#                                   packed form)
#     <prefix>:{<game_id>}:meta     hash: version, status, variant, created, updated, summary (JSON)
#     <prefix>:{<game_id>}:idem     hash: idempotency key -> "<version>:<fingerprint>"
#     <prefix>:{<game_id>}:archive  string: a finished game's archived record (service.rules.archive),
#                                   which holds its log once the stream is dropped
#
# Entries written before ids held the time have ids "<version>-1" and the time in a field ts.
# KEYS: stream, meta, idem, archive
# ARGV: expected version, idempotency key ('' none), fingerprint, ts, status ('' keep),
#       variant ('' keep), created ('' = ts of the first append), index prefix ('' = the index
#       is updated by the caller), game id, summary JSON ('' keep), event JSON...
_LUA_APPEND = LUA_INDEX_FUNCTIONS + """
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
-- an archived game is over: its log never grows again (the rules refuse every move before this)
if redis.call('EXISTS', KEYS[4]) == 1 then return {'archived', tostring(actual)} end

local version = actual
for i = 11, #ARGV do
  version = version + 1
  -- the time in the id's second part: Redis keeps ids as small deltas, a field would cost more
  redis.call('XADD', stream, version .. '-' .. ts, 'e', ARGV[i])
end
if key ~= '' then redis.call('HSET', idem, key, version .. ':' .. fp) end

local old = redis.call('HMGET', meta, 'status', 'variant', 'created')
local status = ARGV[5] ~= '' and ARGV[5] or (old[1] or '')
local variant = ARGV[6] ~= '' and ARGV[6] or (old[2] or '')
local created = old[3] or (ARGV[7] ~= '' and ARGV[7] or ts)
local fields = {'version', version, 'updated', ts, 'created', created}
if status ~= '' then table.insert(fields, 'status'); table.insert(fields, status) end
if variant ~= '' then table.insert(fields, 'variant'); table.insert(fields, variant) end
if ARGV[10] ~= '' then table.insert(fields, 'summary'); table.insert(fields, ARGV[10]) end
redis.call('HSET', meta, unpack(fields))

local idx = ARGV[8]
if idx ~= '' then index_project(idx, ARGV[9], version, status, variant, created) end
return {'ok', tostring(version)}
"""


# The last step of archiving a game: its record is written and checked to give back the log.
# Dropped in one step: the stream, if it still holds exactly the log that was checked, and the snapshots.
# The advice log (service.store.advice) goes with them: the record holds it too.
# KEYS: stream, snap, archive, meta, advice   ARGV: the log's version, the record, the pieces of advice
_LUA_DROP_ARCHIVED = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return -1 end
if tonumber(redis.call('HGET', KEYS[4], 'version') or '0') ~= tonumber(ARGV[1]) then return -1 end
if redis.call('GET', KEYS[3]) ~= ARGV[2] then return -1 end
if redis.call('XLEN', KEYS[5]) ~= tonumber(ARGV[3]) then return -1 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[5])
return 1
"""

#: the largest second part of a stream id
_MAX_SEQ = 2**64 - 1


def _version_of(entry_id) -> int:
    return int(_s(entry_id).partition("-")[0])


def _after_version(version: int) -> str:
    """The id XREAD reads after to get the events after ``version``: the last id ``version`` can have."""
    return f"{version}-{_MAX_SEQ}"


class RedisEventStore(EventStore):
    """The EventStore on Redis (a single server or a RedisCluster client)."""

    def __init__(
        self,
        redis_client,
        codec=None,
        prefix: str = "ginbox",
        clock: Clock | None = None,
        *,
        index: RedisGameIndex | None = None,
        inline_index: bool | None = None,
        waits=None,
    ):
        self.redis = redis_client
        # the client of wait_for_events' blocking reads (None: redis_client): a pool of their own
        # (service.connections.stream_wait_client), so that waiting streams take no connection of requests
        self.waits = redis_client if waits is None else waits
        self.codec = codec if codec is not None else default_codec()
        self.prefix = check_prefix(prefix)
        self.clock = clock or system_clock
        self.index = index if index is not None else RedisGameIndex(redis_client, prefix)
        if self.index.prefix != prefix:
            raise ValueError(f"the index of prefix {self.index.prefix!r} cannot serve the store of {prefix!r}")
        # On a single Redis server the append script also brings the index up to date.
        # So index and logs never disagree.
        # On a Redis Cluster the store asks the index to catch up right after each append.
        # inline_index=False forces the cluster way on a single server (the tests use it)
        self.inline_index = (not isinstance(redis_client, RedisCluster)) if inline_index is None else inline_index
        self._append_script = redis_client.register_script(_LUA_APPEND)
        self._drop_script = redis_client.register_script(_LUA_DROP_ARCHIVED)
        #: the logs of archived games this process read, decoded
        self.archives = DecodedArchives()

    def _key(self, game_id: str, kind: str) -> str:
        return game_key(self.prefix, game_id, kind)

    # -- writing -------------------------------------------------------------------------------

    def append_outcome(self, game_id, events, expected_version, idempotency_key=None, *, fingerprint=None,
                       meta=None) -> Appended:
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
            self.index.key_prefix if self.inline_index else "",
            game_id,
            canonical_json(meta["summary"]) if "summary" in meta else "",
            *payloads,
        ]
        keys = [self._key(game_id, "stream"), self._key(game_id, "meta"), self._key(game_id, "idem"),
                self._key(game_id, "archive")]
        reply = [_s(part) for part in self._append_script(keys=keys, args=args)]
        outcome = reply[0]
        if outcome == "conflict":
            raise ConcurrencyError(game_id, expected_version, int(reply[1]))
        if outcome == "idem_conflict":
            raise IdempotencyConflict(game_id, idempotency_key, reply[2], int(reply[1]))
        if outcome == "archived":
            raise StoreError(f"game {game_id!r} is archived: its log is over")
        if outcome not in ("ok", "idem"):
            raise StoreError(f"unexpected reply from the append script: {reply!r}")
        if not self.inline_index:
            # also after a replayed append: the first attempt may have died before this step
            try:
                self.index.sync(game_id, at_least=int(reply[1]))
            except (redis.RedisError, StoreError):
                log.warning("index of game %s not updated; `ginbox repair-index` will", game_id, exc_info=True)
        return Appended(int(reply[1]), replayed=outcome == "idem")

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
        # an id without its second part: from the first entry of version after + 1 to the last of upto
        entries = self.redis.xrange(
            self._key(game_id, "stream"), min=str(after + 1), max="+" if upto is None else str(upto)
        )
        if not entries:
            # nothing in the stream: the game may be archived (a stream that exists is read first)
            archived = self._archived(game_id)
            return [] if archived is None else self._from_archive(archived, after, upto)
        return [self._from_entry(entry_id, fields) for entry_id, fields in entries]

    def tail(self, game_id, known) -> list[Recorded] | None:
        check_game_id(game_id)
        check_version("known", known)
        if known < 1:
            raise ValueError("known must be >= 1 (a state the log recorded)")
        # one XRANGE from event ``known`` itself: its presence is the check, the rest is the tail
        entries = self.redis.xrange(self._key(game_id, "stream"), min=str(known), max="+")
        if not entries:
            archived = self._archived(game_id)
            if archived is not None and known <= len(archived):
                return self._from_archive(archived, known, None)
            return None
        if _version_of(entries[0][0]) != known:
            return None
        return [self._from_entry(entry_id, fields) for entry_id, fields in entries[1:]]

    def _from_entry(self, entry_id, fields) -> Recorded:
        fields = {_s(k): v for k, v in fields.items()}
        version, _, second = _s(entry_id).partition("-")
        # the time: the id's second part, or (entries written before) the field ts
        ts = int(fields["ts"]) if "ts" in fields else int(second)
        return self._recorded(int(version), ts, fields["e"])

    def version(self, game_id) -> int:
        check_game_id(game_id)
        return int(self.redis.hget(self._key(game_id, "meta"), "version") or 0)

    def wait_for_events(self, game_id, after, timeout_s) -> list[Recorded]:
        check_game_id(game_id)
        check_version("after", after)
        # in slices shorter than the client's socket timeout, which would break one long XREAD BLOCK
        entries = xread_waiting(self.waits, {self._key(game_id, "stream"): _after_version(after)}, max(0.0, timeout_s))
        if not entries:
            # a game archived while its reader waited: its stream is gone, its record holds the rest
            archived = self._archived(game_id)
            return [] if archived is None else self._from_archive(archived, after, None)
        return [self._from_entry(entry_id, fields) for entry_id, fields in entries]

    # -- archiving -----------------------------------------------------------------------------

    def _archived(self, game_id: str) -> list | None:
        """The decoded log of an archived game ([(ts, stored text)]), or None if it has no record."""
        record = self.redis.get(self._key(game_id, "archive"))
        return None if record is None else self.archives.entries(game_id, record).events

    def is_archived(self, game_id) -> bool:
        check_game_id(game_id)
        stream, archive = self._key(game_id, "stream"), self._key(game_id, "archive")
        pipe = self.redis.pipeline(transaction=False)
        pipe.exists(stream)
        pipe.exists(archive)
        has_stream, has_archive = pipe.execute()
        return bool(has_archive) and not has_stream

    def archive(self, game_id) -> bool:
        check_game_id(game_id)
        check_codec(self.codec)
        stream, archive = self._key(game_id, "stream"), self._key(game_id, "archive")
        entries = self.redis.xrange(stream)
        if not entries:
            return False  # archived already (the stream is dropped last), or no such game
        log = []
        for entry_id, fields in entries:
            fields = {_s(k): v for k, v in fields.items()}
            version, _, second = _s(entry_id).partition("-")
            if int(version) != len(log) + 1:
                raise GameNotArchivable(game_id, "archive_mismatch", f"the stream holds version {version} "
                                                                     f"where {len(log) + 1} belongs")
            log.append((int(fields["ts"]) if "ts" in fields else int(second), _s(fields["e"])))
        # the advice log beside it (service.store.advice), which goes into the record too
        advice = []
        for entry_id, fields in self.redis.xrange(self._key(game_id, "advice")):
            fields = {_s(k): _s(v) for k, v in fields.items()}
            version, _, seq = _s(entry_id).partition("-")
            advice.append((int(version), int(seq), int(fields["ts"]), fields["a"]))
        record = encode_log(game_id, log, advice)
        # 1. the record beside the stream (readers still read the stream while it exists)
        self.redis.set(archive, record)
        # 2. read back: what Redis holds gives back the log
        if self.archives.entries(game_id, self.redis.get(archive)) != (log, advice):
            raise GameNotArchivable(game_id, "archive_mismatch", "the stored record does not give back the log")
        # 3. the stream and the snapshots, in one step, if the stream is still the log that was checked
        dropped = int(self._drop_script(
            keys=[stream, self._key(game_id, "snap"), archive, self._key(game_id, "meta"), self._key(game_id, "advice")],
            args=[len(log), record, len(advice)]))
        if dropped < 0:
            raise GameNotArchivable(game_id, "archive_mismatch", "the log changed while it was archived")
        return dropped == 1
