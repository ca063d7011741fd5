"""The memory guard: whether Redis is too full to take new games."""

from __future__ import annotations

from dataclasses import dataclass

import redis as redis_errors


@dataclass(frozen=True)
class MemoryStanding:
    """Redis's memory as last read: bytes used, the ``maxmemory`` bound (0: none), and whether it is past the guard."""

    used: int
    max: int
    guard_share: float
    full: bool


class MemoryGuard:
    """Refuses new games once Redis's ``used_memory`` passes ``share`` of its ``maxmemory``.

    ``share`` <= 0, or a Redis without ``maxmemory``, guards nothing.
    """

    # Without it a flood of creations fills Redis up to maxmemory.
    # Redis then refuses every write, the moves of games in play included (OOM under noeviction),
    # or evicts keys (an event log among them) under any other policy.
    # Refusing new games a little before keeps room for the games already under way.

    def __init__(self, redis, share: float):
        self.redis = redis
        self.share = share

    def standing(self) -> MemoryStanding | None:
        """Redis's memory now; None if the guard is off or Redis does not say (INFO refused)."""
        if self.share <= 0:
            return None
        try:
            info = self.redis.info("memory")
        except redis_errors.ResponseError:  # INFO not allowed to this user: no guard
            return None
        nodes = list(info.values()) if info and all(isinstance(v, dict) for v in info.values()) else [info]
        worst = None
        for node in nodes:  # a cluster: each node's, the fullest decides
            used, most = int(node.get("used_memory", 0)), int(node.get("maxmemory", 0))
            if most <= 0:
                continue
            if worst is None or used / most > worst.used / worst.max:
                worst = MemoryStanding(used, most, self.share, used >= self.share * most)
        return worst

    def full(self) -> bool:
        """Whether new games are refused now."""
        standing = self.standing()
        return standing is not None and standing.full
