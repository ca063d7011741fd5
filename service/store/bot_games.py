"""The games of built-in bots alone in play, per caller and server-wide, for the caps on them (POST /games).

A game is claimed before it is created and counts until it is over.
``InMemoryBotGames`` keeps the same counts in dicts, for the use-case tests.
"""

from __future__ import annotations

import contextlib
import threading

from service.store.redis_index import check_prefix, game_key, text

#: a claim whose game has no log this long after it was claimed is taken for one whose process
#: died before creating it (a creation takes milliseconds; clocks of API processes may differ)
CLAIM_STALE_MS = 60_000
#: a caller's set expires this long after its last claim (its games are long over by then, or
#: stuck, and the set is only a few ids: it keeps no address for ever)
KEEP_MS = 7 * 24 * 3600 * 1000

# On a Redis Cluster the game's meta and the two counts each live in a slot of their own.
# So each script touches one key, and the reads are plain commands, never inside a script.
# KEYS: the caller's set; ARGV: cap, game id, now ms, keep ms. 0 (and nothing written) if the
# caller has ``cap`` games counted already, else 1 once the game is counted.
_CLAIM = """
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""


# A game whose every seat is a built-in bot costs the bot workers a job per turn until it ends,
# however long that is: a target of 100,000 points is thousands of hands.
# Yet the rate limit counts it as one request.
# So each caller has at most a few in play at once: a bot account's token, and the client address, which
# counts the games of every account that sends from it (accounts register freely).
# And the server has at most a few dozen.
class BotGameCounts:
    """The per-caller and server-wide counts of games of built-in bots alone in play.

    The steps are written once here; a backend gives the three primitives (``_live``, ``_take``,
    ``_drop``) and what makes a step atomic in it (``_guard``).
    """

    prefix: str

    # The counts live in:
    #
    #     <prefix>:bot-games:<caller>   sorted set: game id -> when it was claimed (ms since the epoch)
    #     <prefix>:bot-games-in-play    the same, for every caller's games
    def key(self, caller: str) -> str:
        return f"{self.prefix}:bot-games:{caller}"

    @property
    def server_key(self) -> str:
        return f"{self.prefix}:bot-games-in-play"

    def _guard(self):
        return contextlib.nullcontext()

    def in_play(self, caller: str, now_ms: int) -> list[str]:
        """The caller's games counted as in play, once those over (or never made) are dropped."""
        with self._guard():
            return self._live(self.key(caller), now_ms)

    def in_play_on_server(self, now_ms: int) -> list[str]:
        """Every caller's games counted as in play, once those over (or never made) are dropped."""
        with self._guard():
            return self._live(self.server_key, now_ms)

    def claim(self, caller: str | tuple[str, ...], game_id: str, cap: int, now_ms: int,
              server_cap: int = 0) -> str | None:
        """Count ``game_id`` as in play for ``caller`` (one, or several: a bot account and its
        client address) and the server: None once it is counted, else the count that refused it,
        writing nothing: "caller" if the first caller has ``cap`` in play already, "address" if a
        further one has, "server" if the server has ``server_cap`` (a cap of 0: no cap, nothing counted)."""
        # The callers' counts are claimed first, in order, then the server's.
        # A refusal gives back the places taken before it.
        # So no count ever passes its cap, and none holds a game that was refused.
        callers = (caller,) if isinstance(caller, str) else tuple(caller)
        with self._guard():
            taken: list[str] = []
            refused = None
            for i, who in enumerate(callers if cap > 0 else ()):
                if not self._take(self.key(who), cap, game_id, now_ms):
                    refused = "caller" if i == 0 else "address"
                    break
                taken.append(self.key(who))
            if refused is None and server_cap > 0 and not self._take(self.server_key, server_cap, game_id, now_ms):
                refused = "server"
            if refused is not None:
                for key in taken:
                    self._drop(key, game_id)
            return refused

    def release(self, caller: str | tuple[str, ...], game_id: str) -> None:
        """Uncount a game that was claimed and then not made."""
        with self._guard():
            for who in (caller,) if isinstance(caller, str) else caller:
                self._drop(self.key(who), game_id)
            self._drop(self.server_key, game_id)

    # Nothing has to tell the count when a game ends.
    # Each claim first drops the caller's games whose meta hash (<prefix>:{<game_id>}:meta, written by
    # every append) says over.
    # It drops too the claims whose game was never created, once they are CLAIM_STALE_MS old.
    # Their process died between the claim and the game's first append.
    # So no slot is held for ever, whoever ends the game (its last hand, the sweeper's abandonment,
    # a resignation) and whatever dies on the way.
    def _live(self, key: str, now_ms: int) -> list[str]:
        """The games of the count at ``key``, once those over (or never made) are dropped."""
        raise NotImplementedError

    def _take(self, key: str, cap: int, game_id: str, now_ms: int) -> bool:
        """Count ``game_id`` at ``key``: False, writing nothing, if it holds ``cap`` already."""
        raise NotImplementedError

    def _drop(self, key: str, game_id: str) -> None:
        """Uncount ``game_id`` at ``key``."""
        raise NotImplementedError


class RedisBotGames(BotGameCounts):
    """The counts as sorted sets on Redis (score: when the game was claimed, ms)."""

    def __init__(self, redis, prefix: str = "ginbox", *, stale_ms: int = CLAIM_STALE_MS, keep_ms: int = KEEP_MS):
        self.redis = redis
        self.prefix = check_prefix(prefix)
        self.stale_ms = stale_ms
        self.keep_ms = keep_ms
        self._claim = redis.register_script(_CLAIM)

    def _live(self, key: str, now_ms: int) -> list[str]:
        claims = [(text(g), int(ms)) for g, ms in self.redis.zrange(key, 0, -1, withscores=True)]
        if not claims:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for game_id, _ in claims:
            pipe.hget(game_key(self.prefix, game_id, "meta"), "status")
        statuses = pipe.execute()
        gone = [game_id for (game_id, claimed), status in zip(claims, statuses)
                if (status is not None and text(status) == "over")
                or (status is None and now_ms - claimed >= self.stale_ms)]
        if gone:
            self.redis.zrem(key, *gone)
        return [game_id for game_id, _ in claims if game_id not in gone]

    def _take(self, key: str, cap: int, game_id: str, now_ms: int) -> bool:
        # its games over are dropped first; the script checks the cap and counts in one step
        # The drop is a read and a ZREM: dropping what is over is right whenever it is done.
        # The check and the add are one script on the one key, so concurrent creations never pass the cap together.
        self._live(key, now_ms)
        return bool(int(self._claim(keys=[key], args=[cap, game_id, now_ms, self.keep_ms])))

    def _drop(self, key: str, game_id: str) -> None:
        self.redis.zrem(key, game_id)


class InMemoryBotGames(BotGameCounts):
    """The same counts in dicts, for the use-case tests: RedisBotGames's methods and answers.

    A game's status is read from the in-memory event store's index (what its appends' meta said,
    as the meta hash says it on Redis). A count expires ``keep_ms`` after its last claim, timed by
    the callers' ``now_ms`` (Redis times it by its own clock).
    """

    def __init__(self, index, prefix: str = "ginbox", *, stale_ms: int = CLAIM_STALE_MS, keep_ms: int = KEEP_MS):
        self.index = index
        self.prefix = check_prefix(prefix)
        self.stale_ms = stale_ms
        self.keep_ms = keep_ms
        self._counts: dict[str, dict[str, int]] = {}  # key -> game id -> when claimed (ms)
        self._expires: dict[str, int] = {}  # key -> when the count is forgotten (ms)
        self._lock = threading.Lock()

    def _guard(self):
        return self._lock

    def _live(self, key: str, now_ms: int) -> list[str]:
        if key in self._expires and now_ms >= self._expires[key]:
            self._forget(key)
        claims = self._counts.get(key, {})
        for game_id, claimed in list(claims.items()):
            status = self.index.status_of(game_id)
            if status == "over" or (status is None and now_ms - claimed >= self.stale_ms):
                del claims[game_id]
        if not claims:
            self._forget(key)
        # Redis's order: by claim time, then by id
        return [game_id for game_id, _ in sorted(claims.items(), key=lambda item: (item[1], item[0]))]

    def _forget(self, key: str) -> None:
        self._counts.pop(key, None)
        self._expires.pop(key, None)

    def _take(self, key: str, cap: int, game_id: str, now_ms: int) -> bool:
        if len(self._live(key, now_ms)) >= cap:
            return False
        self._counts.setdefault(key, {})[game_id] = now_ms
        self._expires[key] = now_ms + self.keep_ms
        return True

    def _drop(self, key: str, game_id: str) -> None:
        claims = self._counts.get(key, {})
        claims.pop(game_id, None)
        if not claims:
            self._forget(key)
