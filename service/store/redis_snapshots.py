"""RedisSnapshotStore: a game's snapshots in one sorted set beside its log.

    <prefix>:{<game_id>}:snap     sorted set: score version, member {"version", "state"} JSON

A snapshot is accepted only for a version the game's log holds (its meta hash says how many
events there are), checked and written in one script.
"""

from __future__ import annotations

import json

from service.store.base import SnapshotStore, canonical_json, check_game_id, check_version
from service.store.redis_index import check_prefix, game_key

# KEYS: meta, snap   ARGV: version, snapshot JSON
_LUA_SAVE = """
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
local version = tonumber(ARGV[1])
if version < 1 or version > current then return current end
redis.call('ZREMRANGEBYSCORE', KEYS[2], version, version)
redis.call('ZADD', KEYS[2], version, ARGV[2])
return -1
"""


class RedisSnapshotStore(SnapshotStore):
    """The snapshots of the games under one key prefix."""

    def __init__(self, redis_client, prefix: str = "ginbox"):
        self.redis = redis_client
        self.prefix = check_prefix(prefix)
        self._save_script = redis_client.register_script(_LUA_SAVE)

    def save(self, game_id, version, state) -> None:
        check_game_id(game_id)
        check_version("version", version)
        payload = canonical_json({"version": version, "state": state})
        keys = [game_key(self.prefix, game_id, "meta"), game_key(self.prefix, game_id, "snap")]
        current = self._save_script(keys=keys, args=[version, payload])
        if int(current) >= 0:
            raise ValueError(f"snapshot version {version} outside 1..{current} of game {game_id!r}")

    def latest(self, game_id, upto=None):
        check_game_id(game_id)
        found = self.redis.zrevrangebyscore(
            game_key(self.prefix, game_id, "snap"), "+inf" if upto is None else upto, "-inf", start=0, num=1
        )
        if not found:
            return None
        snapshot = json.loads(found[0])
        return snapshot["version"], snapshot["state"]

    def delete(self, game_id) -> None:
        check_game_id(game_id)
        self.redis.delete(game_key(self.prefix, game_id, "snap"))
