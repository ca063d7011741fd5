"""RedisSnapshotStore: a game's snapshots in one sorted set beside its log.

A snapshot is accepted only for a version the game's log holds.
The store keeps the newest ``keep`` snapshots of a game (two by default).
"""

from __future__ import annotations

import base64
import json
import zlib

from service.store.base import SnapshotStore, canonical_json, check_game_id, check_version
from service.store.redis_index import check_prefix, game_key

#     <prefix>:{<game_id>}:snap     sorted set: score version, member the JSON {"version", "state"},
#                                   deflated and in base64
# Deflating keeps a third of its size.
# A member that is plain JSON, as snapshots were first kept, reads as well.
# The game's meta hash says how many events its log holds.
# This one script checks the version against it, writes the snapshot and drops all but the newest keep.
# KEYS: meta, snap   ARGV: version, snapshot JSON, how many snapshots to keep
_LUA_SAVE = """
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
local version = tonumber(ARGV[1])
if version < 1 or version > current then return current end
redis.call('ZREMRANGEBYSCORE', KEYS[2], version, version)
redis.call('ZADD', KEYS[2], version, ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -1 - tonumber(ARGV[3]))
return -1
"""

# Two: the newest state and one a little older.
# So reading any recent version replays at most snapshot_every events.
#: snapshots kept per game
KEEP = 2


def pack_snapshot(text: str) -> str:
    """A snapshot's JSON deflated, in base64 (text, so that any client reads it back)."""
    return base64.b64encode(zlib.compress(text.encode("utf-8"), 6)).decode("ascii")


def unpack_snapshot(stored: str | bytes) -> str:
    """The JSON of a stored snapshot, packed or (as snapshots were first kept) plain."""
    stored = stored.decode("ascii") if isinstance(stored, bytes) else stored
    if stored.startswith("{"):
        return stored
    return zlib.decompress(base64.b64decode(stored)).decode("utf-8")


class RedisSnapshotStore(SnapshotStore):
    """The snapshots of the games under one key prefix."""

    def __init__(self, redis_client, prefix: str = "ginbox", keep: int = KEEP):
        if keep < 1:
            raise ValueError("a snapshot store keeps at least one snapshot a game")
        self.redis = redis_client
        self.prefix = check_prefix(prefix)
        self.keep = keep
        self._save_script = redis_client.register_script(_LUA_SAVE)

    def save(self, game_id, version, state, keep=None) -> None:
        check_game_id(game_id)
        check_version("version", version)
        keep = self.keep if keep is None else keep
        if keep < 1:
            raise ValueError("a snapshot store keeps at least one snapshot a game")
        payload = pack_snapshot(canonical_json({"version": version, "state": state}))
        keys = [game_key(self.prefix, game_id, "meta"), game_key(self.prefix, game_id, "snap")]
        current = self._save_script(keys=keys, args=[version, payload, keep])
        if int(current) >= 0:
            raise ValueError(f"snapshot version {version} outside 1..{current} of game {game_id!r}")

    def latest(self, game_id, upto=None):
        check_game_id(game_id)
        found = self.redis.zrevrangebyscore(
            game_key(self.prefix, game_id, "snap"), "+inf" if upto is None else upto, "-inf", start=0, num=1
        )
        if not found:
            return None
        snapshot = json.loads(unpack_snapshot(found[0]))
        return snapshot["version"], snapshot["state"]

    def delete(self, game_id) -> None:
        check_game_id(game_id)
        # the set's members, not the key: a Redis user without DEL may do this (service/docs/SECURITY.md, Redis ACL)
        # Nothing here needs Redis's DEL.
        self.redis.zremrangebyrank(game_key(self.prefix, game_id, "snap"), 0, -1)
