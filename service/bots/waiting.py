"""The waiting set: the games waiting on a bot, one sorted set on the queue's Redis.

Its score is when the current wait began (ms). The sweeper of ``ginbox worker`` enqueues again the
games that stayed there longer than ``bot_stall_s``. The key carries its own hash tag
(``{#bots}``) so that it stays one slot on a Redis Cluster.
"""

from __future__ import annotations

# Remove a game from the waiting set only if its wait is the one the caller saw (same score):
# a newer wait recorded meanwhile by another scheduler must survive.
_ZREM_IF_SCORE = """
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s and tonumber(s) == tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""


def awaiting_key(key_prefix: str) -> str:
    """The sorted set of games waiting on a bot (member game id, score ms since the wait began)."""
    return f"{key_prefix}:{{#bots}}:awaiting"


def stop_waiting(connection, key_prefix: str, game_id: str, score: float | None) -> bool:
    """Drop a game from the waiting set if its wait is still the one with ``score``."""
    if score is None:
        return False
    return bool(connection.eval(_ZREM_IF_SCORE, 1, awaiting_key(key_prefix), game_id, score))


class WaitingSet:
    """The games waiting on a bot: one sorted set on the queue's Redis (score: when the wait began, ms)."""

    def __init__(self, connection, key_prefix: str):
        self.connection = connection
        self.key = awaiting_key(key_prefix)
        self.key_prefix = key_prefix

    def since(self, game_id: str) -> float | None:
        """When the game's current wait began (ms), or None if it waits on no bot."""
        return self.connection.zscore(self.key, game_id)

    def start(self, game_id: str, now_ms: int) -> None:
        """The game waits on a bot from ``now_ms`` on (a wait it had is replaced)."""
        self.connection.zadd(self.key, {game_id: now_ms})

    def refresh(self, game_id: str, now_ms: int) -> None:
        """Mark a game's wait as fresh, if it still waits (XX: a game that left is not put back)."""
        self.connection.zadd(self.key, {game_id: now_ms}, xx=True)

    def stop(self, game_id: str) -> None:
        """The game waits on no bot."""
        self.connection.zrem(self.key, game_id)

    def stop_if(self, game_id: str, score: float | None) -> bool:
        """Drop the game if its wait is still the one with ``score`` (a newer wait survives)."""
        return stop_waiting(self.connection, self.key_prefix, game_id, score)

    def begun_before(self, limit_ms: int) -> list[str]:
        """The games whose wait began at or before ``limit_ms``."""
        return [g.decode() if isinstance(g, bytes) else g for g in self.connection.zrangebyscore(self.key, "-inf", limit_ms)]

    def games(self) -> set[str]:
        """Every game waiting on a bot."""
        return {g.decode() if isinstance(g, bytes) else g for g in self.connection.zrange(self.key, 0, -1)}
