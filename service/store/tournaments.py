"""The tournaments' keys beside their logs: which are in play (and how many may be), their list, the
tournament of a pairing's match. ``InMemoryTournaments`` is the twin the use-case tests build on."""

from __future__ import annotations

import threading

# <p>:tourney:in-play: the ids of the tournaments in play (GINBOX_TOURNAMENTS_IN_PLAY bounds it)
# <p>:tourney:all: every tournament by when it was made (ms), newest last
# <p>:tourney:of-match: a pairing's match id -> its tournament's id
_LUA_CLAIM = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if tonumber(ARGV[2]) > 0 and redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
"""


def _s(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisTournaments:
    """What the arena keeps of its tournaments beside their logs, on Redis."""

    def __init__(self, redis, prefix: str):
        self.redis = redis
        self.prefix = f"{prefix}:tourney"
        self._claim = redis.register_script(_LUA_CLAIM)

    def _k(self, name: str) -> str:
        return f"{self.prefix}:{name}"

    def claim(self, tournament_id: str, cap: int, now_ms: int) -> bool:
        """Count a new tournament in play; False, writing nothing, if ``cap`` (0: none) are in play
        already. A tournament counted already is counted once."""
        return bool(self._claim(keys=[self._k("in-play"), self._k("all")], args=[tournament_id, cap, now_ms]))

    def release(self, tournament_id: str) -> None:
        """The tournament is no longer in play (it is over, or was never made)."""
        self.redis.srem(self._k("in-play"), tournament_id)

    def in_play(self) -> list[str]:
        return sorted(_s(t) for t in self.redis.smembers(self._k("in-play")))

    def playing(self, tournament_id: str) -> bool:
        return bool(self.redis.sismember(self._k("in-play"), tournament_id))

    def latest(self, limit: int) -> list[str]:
        return [_s(t) for t in self.redis.zrevrange(self._k("all"), 0, limit - 1)]

    def mark_matches(self, tournament_id: str, match_ids: list[str]) -> None:
        if match_ids:
            self.redis.hset(self._k("of-match"), mapping={m: tournament_id for m in match_ids})

    def tournament_of(self, match_id: str) -> str | None:
        raw = self.redis.hget(self._k("of-match"), match_id)
        return None if raw is None else _s(raw)


class InMemoryTournaments:
    """RedisTournaments' behaviour in one process."""

    def __init__(self):
        self._lock = threading.Lock()
        self._in_play: set[str] = set()
        self._all: dict[str, int] = {}
        self._of_match: dict[str, str] = {}

    def claim(self, tournament_id: str, cap: int, now_ms: int) -> bool:
        with self._lock:
            if tournament_id in self._in_play:
                return True
            if cap > 0 and len(self._in_play) >= cap:
                return False
            self._in_play.add(tournament_id)
            self._all[tournament_id] = now_ms
            return True

    def release(self, tournament_id: str) -> None:
        with self._lock:
            self._in_play.discard(tournament_id)

    def in_play(self) -> list[str]:
        with self._lock:
            return sorted(self._in_play)

    def playing(self, tournament_id: str) -> bool:
        with self._lock:
            return tournament_id in self._in_play

    def latest(self, limit: int) -> list[str]:
        with self._lock:
            return [t for t, _ in sorted(self._all.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)][:limit]

    def mark_matches(self, tournament_id: str, match_ids: list[str]) -> None:
        with self._lock:
            self._of_match.update({m: tournament_id for m in match_ids})

    def tournament_of(self, match_id: str) -> str | None:
        with self._lock:
            return self._of_match.get(match_id)
