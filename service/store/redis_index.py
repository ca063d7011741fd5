"""RedisGameIndex: the game index on Redis, a projection that the append script keeps.

The index lives under its own hash tag ``{#index}``.
A summary's fields come from the game's meta hash, written by every append with its events.
On a Redis Cluster the event store calls :meth:`RedisGameIndex.sync` right after each append, and
:meth:`RedisGameIndex.repair` rebuilds the index from the meta hashes.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Callable, Iterator

from service.store.base import (
    MAX_TS,
    GameIndex,
    check_filter,
    check_limit,
    decode_cursor,
    encode_cursor,
    index_member,
)
from service.store.errors import StoreError

log = logging.getLogger(__name__)

# The index lives under its own hash tag {#index} ('#' never occurs in a game id):
#
#     <prefix>:{#index}:all, :status:<s>, :variant:<v>, :sv:<s>:<v>
#         sorted sets, all scores 0, members "<inverted created, 15 digits>:<game_id>", so that
#         ZRANGEBYLEX walks the games newest first
#     <prefix>:{#index}:where       hash: game id -> "<version>\n<status>\n<variant>\n<created>",
#         what the index currently says about the game
INDEX_TAG = "{#index}"

# Lua shared by the event store's append script and the index's own script
# On a single Redis server the append script also moves the game between the index's sets.
# It does so with the Lua function index_project below, called from the event store's script.
# So index and logs never disagree.
# A Redis Cluster cannot run one script over two slots.
# There the event store calls RedisGameIndex.sync right after each append: a compare-and-set
# script that only moves forward.
# And RedisGameIndex.repair rebuilds the index from the meta hashes if a process died in between.
LUA_INDEX_FUNCTIONS = """
local function index_move(where_key, gid, old_keys, old_member, new_keys, new_member, new_where)
  for _, k in ipairs(old_keys) do redis.call('ZREM', k, old_member) end
  for _, k in ipairs(new_keys) do redis.call('ZADD', k, 0, new_member) end
  redis.call('HSET', where_key, gid, new_where)
end

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

-- one server only: the index's keys are named here, so a cluster client never calls it
local function index_project(idx, gid, version, status, variant, created)
  local where_key = idx .. 'where'
  local new_where = version .. '\\n' .. status .. '\\n' .. variant .. '\\n' .. created
  local was = redis.call('HGET', where_key, gid)
  local parts = {}
  if was then
    for part in string.gmatch(was .. '\\n', '([^\\n]*)\\n') do table.insert(parts, part) end
  end
  if was and parts[2] == status and parts[3] == variant and parts[4] == tostring(created) then
    -- most appends change neither status nor variant: the game stays in the same sets
    redis.call('HSET', where_key, gid, new_where)
    return
  end
  local old_keys, old_member = {}, ''
  if was then old_keys, old_member = index_keys(idx, parts[2], parts[3]), member(parts[4], gid) end
  index_move(where_key, gid, old_keys, old_member, index_keys(idx, status, variant), member(created, gid), new_where)
end
""".replace("MAX_TS", str(MAX_TS))

# KEYS: where, old index keys..., new index keys...
# ARGV: game id, where value expected now ('' none), new where value, number of old keys,
#       old member, new member
_LUA_SYNC = LUA_INDEX_FUNCTIONS + """
local gid, expected, new_where, n_old = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local now = redis.call('HGET', KEYS[1], gid) or ''
if now ~= expected then return 'retry' end
local old_keys, new_keys = {}, {}
for i = 2, 1 + n_old do table.insert(old_keys, KEYS[i]) end
for i = 2 + n_old, #KEYS do table.insert(new_keys, KEYS[i]) end
index_move(KEYS[1], gid, old_keys, ARGV[5], new_keys, ARGV[6], new_where)
return 'ok'
"""


def text(value: Any) -> str:
    """A reply as str, whether the client decodes replies or not."""
    return value.decode("utf-8") if isinstance(value, bytes) else value


def check_prefix(prefix: str) -> str:
    if not prefix or any(c in prefix for c in "{}"):
        raise ValueError(f"invalid key prefix {prefix!r}")
    return prefix


def game_key(prefix: str, game_id: str, kind: str) -> str:
    """The key of one of a game's structures (stream, meta, idem, snap), in the game's hash slot."""
    return f"{prefix}:{{{game_id}}}:{kind}"


class RedisGameIndex(GameIndex):
    """The game index of the games under one key prefix."""

    def __init__(self, redis_client, prefix: str = "ginbox"):
        self.redis = redis_client
        self.prefix = check_prefix(prefix)
        self.key_prefix = f"{prefix}:{INDEX_TAG}:"
        self._sync_script = redis_client.register_script(_LUA_SYNC)

    def _sets(self, status: str, variant: str) -> list[str]:
        """The index sets a game with this status and variant belongs to (as ``index_keys`` in the Lua)."""
        idx = self.key_prefix
        keys = [idx + "all"]
        if status:
            keys.append(f"{idx}status:{status}")
        if variant:
            keys.append(f"{idx}variant:{variant}")
        if status and variant:
            keys.append(f"{idx}sv:{status}:{variant}")
        return keys

    # A summary's fields come from the game's meta hash (<prefix>:{<game_id>}:meta): version, status,
    # variant, created, updated and the appends' latest summary.
    # Every append writes it in the same script as its events.
    def _meta(self, game_id: str) -> str:
        return game_key(self.prefix, game_id, "meta")

    def list_games(self, status=None, variant=None, cursor=None, limit=50, hidden=None):
        check_limit(limit)
        check_filter("status", status)
        check_filter("variant", variant)
        start = "(" + decode_cursor(cursor) if cursor is not None else "-"
        # the one set that holds exactly the games of this filter
        key = self._sets(status or "", variant or "")[-1]
        members = [text(m) for m in self.redis.zrangebylex(key, start, "+", start=0, num=limit + 1)]
        page = members[:limit]
        next_cursor = encode_cursor(page[-1]) if len(members) > limit else None
        if hidden is not None and page:
            left_out = hidden([m.partition(":")[2] for m in page])
            page = [m for m in page if m.partition(":")[2] not in left_out]  # their meta is never read
        pipe = self.redis.pipeline(transaction=False)
        for member in page:
            pipe.hmget(self._meta(member.partition(":")[2]), "version", "status", "variant", "created", "updated", "summary")
        summaries = []
        for member, row in zip(page, pipe.execute() if page else []):
            version, row_status, row_variant, created, updated, summary = (
                text(v) if v is not None else None for v in row
            )
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
                    "summary": json.loads(summary) if summary is not None else None,
                }
            )
        return summaries, next_cursor

    def sync(self, game_id: str, at_least: int = 0, force: bool = False, attempts: int = 50) -> bool:
        """Make the index say what the game's meta hash says; True if this call wrote it.

        The index only moves forward: an entry written for a later version is never replaced
        by an earlier one, so concurrent writers converge on the newest meta. Once the index
        holds version ``at_least`` or later, there is nothing left for this caller to do.
        """
        where_key = self.key_prefix + "where"
        for _ in range(attempts):
            version, status, variant, created = (
                text(v) if v is not None else None
                for v in self.redis.hmget(self._meta(game_id), "version", "status", "variant", "created")
            )
            if version is None:
                return False
            status, variant = status or "", variant or ""
            new_where = f"{version}\n{status}\n{variant}\n{created}"
            was = text(self.redis.hget(where_key, game_id) or b"")
            old_keys, old_member = [], ""
            if was:
                was_version, was_status, was_variant, was_created = was.split("\n")
                if int(was_version) > int(version) or (not force and (was == new_where or int(was_version) >= at_least > 0)):
                    return False
                old_keys, old_member = self._sets(was_status, was_variant), index_member(int(was_created), game_id)
            reply = self._sync_script(
                keys=[where_key, *old_keys, *self._sets(status, variant)],
                args=[game_id, was, new_where, len(old_keys), old_member, index_member(int(created), game_id)],
            )
            if text(reply) == "ok":
                return True
        raise StoreError(f"index of game {game_id!r} kept changing during {attempts} attempts")

    def _game_ids(self) -> Iterator[str]:
        """The id of every game that has a meta hash under this prefix."""
        suffix = "}:meta"
        for key in self.redis.scan_iter(match=f"{self.prefix}:{{*}}:meta", count=500):
            key = text(key)
            game_id = key[len(self.prefix) + 2 : -len(suffix)]
            if self._meta(game_id) == key:
                yield game_id

    def count_games(self) -> int:
        """How many games have a meta hash (what ``repair`` goes through), by a scan of the keys."""
        return sum(1 for _ in self._game_ids())

    def repair(self, progress: Callable[[int], None] | None = None) -> int:
        """Rewrite every game's index entry from its meta hash; return how many games were seen.

        ``progress(seen)`` is called after each game.
        """
        seen = 0
        for game_id in self._game_ids():
            self.sync(game_id, force=True)
            seen += 1
            if progress is not None:
                progress(seen)
        return seen
