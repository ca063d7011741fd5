"""The arena's Redis adapters: bot accounts, each bot's event stream, the matches' keys, ratings, challenges.

A match's own log is a :class:`~service.store.redis_store.RedisEventStore` under a key prefix of its
own (``<prefix>:match``, with the match codec of service.rules.duplicate).
Everything else is here, under ``<prefix>:arena``; each key is described where it is used.
"""

from __future__ import annotations

import json
from typing import Callable

from redis.exceptions import WatchError

from service.store.redis_wait import xread_waiting

# A match's log has a key prefix of its own so that matches never appear among the games.

# <p>:arena:bots (name -> profile JSON, with the SHA-256 of the bot's token),
# <p>:arena:bot-tokens (token hash -> name) and <p>:arena:bot-names (the name in lower case -> name:
# a name is taken in any case) are written together by this script.
# KEYS: bots, bot-tokens, bot-names, bots-by-name; ARGV: name, profile JSON, token hash, the name in lower case.
# bot-names (lower-case name -> name) is filled from bots on first use, so that the accounts an
# older server registered hold their names too (names are ASCII: Lua's lower is enough)
_REGISTER = """
if redis.call('EXISTS', KEYS[3]) == 0 then
  for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do
    redis.call('HSETNX', KEYS[3], string.lower(name), name)
  end
end
if redis.call('EXISTS', KEYS[4]) == 0 then
  for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do
    redis.call('ZADD', KEYS[4], 0, name)
  end
end
if redis.call('HEXISTS', KEYS[3], ARGV[4]) == 1 then return 0 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[3], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[4], 0, ARGV[1])
return 1
"""

# <p>:arena:bots-by-name: every account's name, all at score 0, so that GET /bots pages through
# them in name order (ZRANGEBYLEX). It is filled from bots when it is missing, by _REGISTER and by
# bot_names, so that the accounts an older server registered are listed too.

# <p>:arena:match-seeds: match id -> its secret seed, until the match ends and reveals it.
# <p>:arena:match:{<id>}:seat-tokens: participant index -> the SHA-256 of a person's token.
# The person's seats in every game of the match play with it, and it never enters a log.
# <p>:arena:matches: match ids by time.
_SAVE_SEED = """
local kept = redis.call('HGET', KEYS[1], ARGV[1])
if kept then return kept end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if #ARGV > 3 then redis.call('HSET', KEYS[2], unpack(ARGV, 4)) end
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return ARGV[2]
"""


#: entries a bot's stream keeps at least (XADD MAXLEN ~: Redis trims whole blocks, so somewhat more stay)
STREAM_MAX_LEN = 10_000
#: how long a challenge is kept once answered, withdrawn or expired (then it is gone: no such challenge)
CHALLENGE_KEEP_MS = 7 * 24 * 3600 * 1000

# <p>:arena:challenge:{<id>}: a challenge's JSON, kept CHALLENGE_KEEP_MS past its expiry or its answer.
# The challenges of an older server stay in the hash <p>:arena:challenges, and move to their own key when answered.
# <p>:arena:bot:{<name>}:challenges-pending and <p>:arena:challenger:<who>:pending: challenge id -> when
# it expires, in ms.
# They are the pending challenges to a bot and of one challenger, for their caps.
# KEYS: the challenge's key, the challenged bot's pending set, the challenger's pending set;
# ARGV: now ms, expires ms, cap per bot, cap per challenger, id, JSON, key TTL ms. Drops the
# expired ids of both sets, then refuses (-1: the bot's cap, -2: the challenger's; a cap of 0 is
# none) or stores.
_SAVE_CHALLENGE = """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
if tonumber(ARGV[3]) > 0 and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return -1 end
if tonumber(ARGV[4]) > 0 and redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return -2 end
if not redis.call('SET', KEYS[1], ARGV[6], 'NX', 'PX', ARGV[7]) then return 0 end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[5])
return 1
"""

# <p>:arena:in-play and <p>:arena:in-play:<caller>: match id -> when it was made.
# They are the matches of POST /matches not yet over, server-wide and per caller, for their caps.
# A bot's match counts against the bot and against its client address (two callers).
# KEYS: the server's in-play set, each caller's, matches-over; ARGV: cap overall, cap per caller, match id,
# now ms. Drops the matches over from every set, then refuses (-1: the first caller's cap, -3: a further
# caller's, -2: the server's; 0 is no cap) or adds the match to every set. A match the first caller has
# counted already (a retry of its creation, whose id its Idempotency-Key fixes) is not refused by itself.
_CLAIM_MATCH = """
local n = #KEYS
local over = KEYS[n]
for i = 1, n - 1 do
  for _, id in ipairs(redis.call('ZRANGE', KEYS[i], 0, -1)) do
    if redis.call('SISMEMBER', over, id) == 1 then redis.call('ZREM', KEYS[i], id) end
  end
end
if redis.call('ZSCORE', KEYS[2], ARGV[3]) then
  for i = 1, n - 1 do redis.call('ZADD', KEYS[i], ARGV[4], ARGV[3]) end
  return 1
end
for i = 2, n - 1 do
  if tonumber(ARGV[2]) > 0 and redis.call('ZCARD', KEYS[i]) >= tonumber(ARGV[2]) then
    if i == 2 then return -1 else return -3 end
  end
end
if tonumber(ARGV[1]) > 0 and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return -2 end
for i = 1, n - 1 do redis.call('ZADD', KEYS[i], ARGV[4], ARGV[3]) end
return 1
"""


def _s(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisArenaStore:
    """The arena's keys under ``<prefix>:arena``."""

    def __init__(self, redis, prefix: str, *, stream_max_len: int = STREAM_MAX_LEN, waits=None):
        self.redis = redis
        # the client of read_stream's blocking reads (None: redis): a pool of their own
        self.waits = redis if waits is None else waits
        self.prefix = f"{prefix}:arena"
        self.stream_max_len = stream_max_len
        self._register = redis.register_script(_REGISTER)
        self._save_seed = redis.register_script(_SAVE_SEED)
        self._save_challenge = redis.register_script(_SAVE_CHALLENGE)
        self._claim_match = redis.register_script(_CLAIM_MATCH)

    def _k(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    def _bot(self, name: str, kind: str) -> str:
        return self._k("bot", "{" + name + "}", kind)

    # -- bot accounts -------------------------------------------------------------------------------

    def register_bot(self, name: str, profile: dict, token_hash: str) -> bool:
        """Record a new bot account; False if the name is taken in any case (nothing is written then)."""
        keys = [self._k("bots"), self._k("bot-tokens"), self._k("bot-names"), self._k("bots-by-name")]
        body = json.dumps({**profile, "token_hash": token_hash}, sort_keys=True)
        return bool(self._register(keys=keys, args=[name, body, token_hash, name.lower()]))

    def bot(self, name: str) -> dict | None:
        raw = self.redis.hget(self._k("bots"), name)
        return None if raw is None else json.loads(raw)

    def update_bot(self, name: str, changes: dict) -> dict | None:
        """Merge ``changes`` into the bot's profile; the profile (with its token hash), or None if no such bot."""
        key = self._k("bots")
        while True:
            with self.redis.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(key)
                    raw = pipe.hget(key, name)
                    if raw is None:
                        return None
                    bot = {**json.loads(raw), **changes}
                    pipe.multi()
                    pipe.hset(key, name, json.dumps(bot, sort_keys=True))
                    pipe.execute()
                    return bot
                except WatchError:
                    continue

    def replace_bot_token(self, name: str, old_hash: str, new_hash: str, usable: bool) -> bool:
        """The bot's token hash ``old_hash`` becomes ``new_hash`` (a token of it is known by its hash only if
        ``usable``); False, writing nothing, if ``old_hash`` is not the bot's current one."""
        bots, tokens = self._k("bots"), self._k("bot-tokens")
        while True:
            with self.redis.pipeline(transaction=True) as pipe:
                try:
                    # WATCH-guarded: of two replacements of one token at once, one finds it current
                    pipe.watch(bots, tokens)
                    raw, owner = pipe.hget(bots, name), pipe.hget(tokens, old_hash)
                    if raw is None or json.loads(raw)["token_hash"] != old_hash or _s(owner or b"") != name:
                        return False
                    bot = {**json.loads(raw), "token_hash": new_hash}
                    pipe.multi()
                    pipe.hset(bots, name, json.dumps(bot, sort_keys=True))
                    pipe.hdel(tokens, old_hash)
                    if usable:
                        pipe.hset(tokens, new_hash, name)
                    pipe.execute()
                    return True
                except WatchError:
                    continue

    def bot_name(self, name: str) -> str | None:
        """The name of the bot account called ``name`` in any case, as it was registered; None if none is."""
        # the name as written first: accounts an older server registered may differ only in case
        # (each keeps its own), and bot-names is only filled by the first registration (_REGISTER)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hexists(self._k("bots"), name)
        pipe.hget(self._k("bot-names"), name.lower())
        exact, folded = pipe.execute()
        if exact:
            return name
        return None if folded is None else _s(folded)

    def bot_of_token(self, token_hash: str) -> str | None:
        raw = self.redis.hget(self._k("bot-tokens"), token_hash)
        return None if raw is None else _s(raw)

    # <p>:arena:bot:{<name>}:games and :matches: what the bot was seated in, sorted by time.
    # <p>:arena:bot:{<name>}:games-in-play: the games it was seated in and not seen to end, all at
    # score 0 (paged by id with ZRANGEBYLEX). A game's end takes it out (game_left_play); one whose
    # end was never seen is taken out by the reader that finds it over.
    def seat_bot(self, name: str, kind: str, item_id: str, ts_ms: int) -> None:
        """Remember that the bot was seated in a game (``kind`` "games") or a match ("matches")."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(self._bot(name, kind), {item_id: ts_ms}, nx=True)
        if kind == "games":
            pipe.zadd(self._bot(name, "games-in-play"), {item_id: 0})
        pipe.execute()

    def games_in_play(self, name: str, after: str | None, count: int) -> list[str]:
        """The ids of the bot's games in play (as far as their ends were seen), in id order, after ``after``."""
        low = "-" if after is None else f"({after}"
        return [_s(g) for g in self.redis.zrangebylex(self._bot(name, "games-in-play"), low, "+", 0, count)]

    def game_left_play(self, name: str, game_id: str) -> None:
        """Take a game that is over (or was never made) out of the bot's games in play."""
        self.redis.zrem(self._bot(name, "games-in-play"), game_id)

    def last_seated(self, names: list[str]) -> dict[str, int | None]:
        """When each bot was last seated in a game (ms), None if never."""
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.zrevrange(self._bot(name, "games"), 0, 0, withscores=True)
        return {name: int(rows[0][1]) if rows else None for name, rows in zip(names, pipe.execute())}

    # <p>:arena:bots-seen: name -> when the bot last opened its stream or read its games or challenges (ms).
    def saw_bot(self, name: str, ts_ms: int) -> None:
        """Record that the bot showed itself (its stream, its games, its challenges) at ``ts_ms``."""
        self.redis.hset(self._k("bots-seen"), name, ts_ms)

    def last_seen(self, names: list[str]) -> dict[str, int | None]:
        """When each bot last showed itself (saw_bot), None if never."""
        rows = self.redis.hmget(self._k("bots-seen"), names) if names else []
        return {name: None if raw is None else int(raw) for name, raw in zip(names, rows)}

    def bot_names(self, after: str | None, count: int) -> list[str]:
        """Bot accounts' names in name order (as Redis compares bytes), after ``after``."""
        key = self._k("bots-by-name")
        if not self.redis.exists(key):
            names = [_s(n) for n in self.redis.hkeys(self._k("bots"))]
            if names:
                self.redis.zadd(key, dict.fromkeys(names, 0))
        low = "-" if after is None else f"({after}"
        return [_s(n) for n in self.redis.zrangebylex(key, low, "+", 0, count)]

    def seated(self, name: str, kind: str, limit: int = 100) -> tuple[int, list[str]]:
        """(how many, the newest ``limit`` ids) of the bot's games or matches."""
        key = self._bot(name, kind)
        pipe = self.redis.pipeline(transaction=False)
        pipe.zcard(key)
        pipe.zrevrange(key, 0, limit - 1)
        count, ids = pipe.execute()
        return int(count), [_s(i) for i in ids]

    # -- each bot's stream ------------------------------------------------------------------------

    # <p>:arena:bot:{<name>}:stream: the bot's events, a Redis Stream whose entry ids are the SSE ids.

    def notify(self, name: str, kind: str, data: dict) -> str:
        """Add an event to the bot's stream; its id. The stream keeps about its last ``stream_max_len``
        entries (XADD MAXLEN ~): a reader resuming after an id trimmed since reads on from the oldest kept."""
        entry = {"type": kind, "data": json.dumps(data, separators=(",", ":"), sort_keys=True)}
        return _s(self.redis.xadd(self._bot(name, "stream"), entry, maxlen=self.stream_max_len, approximate=True))

    def read_stream(self, name: str, after: str, wait_s: float | None = None, count: int = 256) -> list[tuple]:
        """[(id, type, data)] after the entry ``after`` ("0": from the start), waiting up to ``wait_s``
        seconds for the first (None: no wait), however short the client's socket timeout."""
        entries = xread_waiting(self.waits if wait_s else self.redis, {self._bot(name, "stream"): after}, wait_s,
                                count=count)
        out = []
        for entry_id, fields in entries:
            f = {_s(k): _s(v) for k, v in fields.items()}
            out.append((_s(entry_id), f["type"], json.loads(f["data"])))
        return out

    # -- games and matches: <p>:arena:game-of: game id -> its match, board and table, or that it is a rated game.
    def mark_game(self, game_id: str, info: dict) -> None:
        """Record what a game belongs to (a match's board and table, or a rated game)."""
        self.redis.hset(self._k("game-of"), game_id, json.dumps(info, sort_keys=True))

    def game_of(self, game_id: str) -> dict | None:
        raw = self.redis.hget(self._k("game-of"), game_id)
        return None if raw is None else json.loads(raw)

    def games_of(self, game_ids: list[str]) -> dict[str, dict]:
        """``game_of`` of many games in one read: the marked ones only."""
        if not game_ids:
            return {}
        rows = self.redis.hmget(self._k("game-of"), game_ids)
        return {gid: json.loads(raw) for gid, raw in zip(game_ids, rows) if raw is not None}

    # <p>:arena:match:{<id>}:finished: game index -> points: the match's games seen to end.
    def mark_finished(self, match_id: str, index: int, points: list[int]) -> None:
        """Record that the match's game ``index`` is over with these points, for the next advance."""
        self.redis.hset(self._k("match", "{" + match_id + "}", "finished"), str(index), json.dumps(points))

    def finished(self, match_id: str, among: list[int] | None = None) -> dict[int, list[int]]:
        """The match's games seen to end, by index: all of them, or those of ``among`` alone (advance's)."""
        key = self._k("match", "{" + match_id + "}", "finished")
        rows = self.redis.hgetall(key).items() if among is None else zip(among, self.redis.hmget(
            key, [str(i) for i in among]) if among else [])
        return {int(_s(k)): json.loads(v) for k, v in rows if v is not None}

    def mark_match_over(self, match_id: str) -> None:
        """Record that the match is over: its games read like any other from now on."""
        self.redis.sadd(self._k("matches-over"), match_id)

    def match_over(self, match_id: str) -> bool:
        """Whether the match was recorded as over (one that ended before the record existed is not)."""
        return bool(self.redis.sismember(self._k("matches-over"), match_id))

    def matches_over(self, match_ids: list[str]) -> set[str]:
        """The matches of ``match_ids`` recorded as over (``match_over`` of many, in one read)."""
        if not match_ids:
            return set()
        pipe = self.redis.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.sismember(self._k("matches-over"), match_id)
        flags = pipe.execute()
        return {m for m, flag in zip(match_ids, flags) if flag}

    def save_match_seed(self, match_id: str, seed: bytes, ts_ms: int,
                        seat_tokens: dict[int, str] | None = None) -> bytes:
        """Record a new match's secret seed (and its persons' token hashes by participant) at once;
        the seed kept. Only the first save of a match id writes: a later one (a second maker of
        the same match) writes nothing and is given the first one's seed, which the match uses."""
        keys = [self._k("match-seeds"), self._k("match", "{" + match_id + "}", "seat-tokens"), self._k("matches")]
        pairs = [part for i, h in (seat_tokens or {}).items() for part in (str(i), h)]
        return bytes.fromhex(_s(self._save_seed(keys=keys, args=[match_id, seed.hex(), ts_ms, *pairs])))

    def match_seed(self, match_id: str) -> bytes | None:
        raw = self.redis.hget(self._k("match-seeds"), match_id)
        return None if raw is None else bytes.fromhex(_s(raw))

    def match_seat_tokens(self, match_id: str) -> dict[int, str]:
        """Participant index -> the token hash its seats play with (a person's; bots have their own)."""
        raw = self.redis.hgetall(self._k("match", "{" + match_id + "}", "seat-tokens"))
        return {int(_s(k)): _s(v) for k, v in raw.items()}

    def claim_match(self, match_id: str, caller: str | tuple[str, ...], overall: int, per_caller: int,
                    now_ms: int) -> int:
        """Count a new match as in play for ``caller`` (one, or several: a bot and its address) and
        the server: 1, or -1 if the first caller has ``per_caller`` in play already, -3 if a further
        one has, -2 if the server has ``overall`` (nothing is written then); 1 for a match the first
        caller has counted already, whatever the caps (a retried creation).
        A match leaves every count when it is recorded as over (mark_match_over)."""
        callers = (caller,) if isinstance(caller, str) else tuple(caller)
        keys = [self._k("in-play"), *(self._k("in-play", c) for c in callers), self._k("matches-over")]
        return int(self._claim_match(keys=keys, args=[overall, per_caller, match_id, now_ms]))

    def release_match(self, match_id: str, caller: str | tuple[str, ...]) -> None:
        """Uncount a match that was claimed and then not made."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrem(self._k("in-play"), match_id)
        for c in (caller,) if isinstance(caller, str) else caller:
            pipe.zrem(self._k("in-play", c), match_id)
        pipe.execute()

    def matches(self, limit: int = 100) -> list[str]:
        return [_s(m) for m in self.redis.zrevrange(self._k("matches"), 0, limit - 1)]

    # -- ratings ----------------------------------------------------------------------------------

    # <p>:arena:ratings:<variant>: name -> Glicko-2 rating JSON.
    # <p>:arena:rated: the rating periods applied, so that none is applied twice.

    def ratings(self, variant: str) -> dict[str, dict]:
        return {_s(k): json.loads(v) for k, v in self.redis.hgetall(self._k("ratings", variant)).items()}

    def ratings_of(self, variant: str, names: list[str]) -> dict[str, dict]:
        """The ratings of ``names`` in ``variant`` (those rated only)."""
        rows = self.redis.hmget(self._k("ratings", variant), names) if names else []
        return {name: json.loads(raw) for name, raw in zip(names, rows) if raw is not None}

    def rating(self, variant: str, name: str) -> dict | None:
        raw = self.redis.hget(self._k("ratings", variant), name)
        return None if raw is None else json.loads(raw)

    def apply_period(self, variant: str, period_id: str,
                     update: Callable[[dict[str, dict]], dict[str, dict]]) -> bool:
        """Apply one rating period once: ``update(current ratings)`` gives the changed ones.

        Read, compute and write under WATCH, so that two periods ending at once are applied one
        after the other; False if this period was applied already.
        """
        key, rated = self._k("ratings", variant), self._k("rated")
        while True:
            with self.redis.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(key, rated)
                    if pipe.sismember(rated, period_id):
                        return False
                    current = {_s(k): json.loads(v) for k, v in pipe.hgetall(key).items()}
                    changed = update(current)
                    pipe.multi()
                    if changed:
                        pipe.hset(key, mapping={k: json.dumps(v, sort_keys=True) for k, v in changed.items()})
                    pipe.sadd(rated, period_id)
                    pipe.execute()
                    return True
                except WatchError:
                    continue

    # -- challenges -------------------------------------------------------------------------------

    def _challenge_key(self, challenge_id: str) -> str:
        return self._k("challenge", "{" + challenge_id + "}")

    def _pending_keys(self, challenge: dict) -> list[str]:
        return [self._bot(challenge["to"], "challenges-pending"), self._k("challenger", challenge["by"], "pending")]

    def save_challenge(self, challenge_id: str, challenge: dict) -> None:
        """Write a challenge over the one kept (its time to live unchanged)."""
        key = self._challenge_key(challenge_id)
        body = json.dumps(challenge, sort_keys=True)
        if not self.redis.set(key, body, xx=True, keepttl=True):
            self.redis.set(key, body, px=CHALLENGE_KEEP_MS)

    def add_challenge(self, challenge: dict, *, per_bot: int, per_challenger: int, now_ms: int) -> int:
        """Store a new pending challenge (with its ``to``, ``by``: who the challenger counts as, and
        ``expires``): 1, or -1 if its bot has ``per_bot`` pending already, -2 if its challenger has
        ``per_challenger``, 0 if the id is taken (nothing is written then)."""
        body = json.dumps(challenge, sort_keys=True)
        ttl = max(1, challenge["expires"] - now_ms) + CHALLENGE_KEEP_MS
        keys = [self._challenge_key(challenge["challenge_id"]), *self._pending_keys(challenge)]
        return int(self._save_challenge(keys=keys, args=[now_ms, challenge["expires"], per_bot, per_challenger,
                                                         challenge["challenge_id"], body, ttl]))

    def pending_challenge_ids(self, name: str, by: str, now_ms: int) -> tuple[list[str], list[str]]:
        """(to the bot, from it: ``by``) the ids of the challenges pending and not expired at ``now_ms``."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrangebyscore(self._bot(name, "challenges-pending"), f"({now_ms}", "+inf")
        pipe.zrangebyscore(self._k("challenger", by, "pending"), f"({now_ms}", "+inf")
        incoming, outgoing = pipe.execute()
        return [_s(i) for i in incoming], [_s(i) for i in outgoing]

    def challenge(self, challenge_id: str) -> dict | None:
        raw = self.redis.get(self._challenge_key(challenge_id))
        if raw is None:  # one an older server stored
            raw = self.redis.hget(self._k("challenges"), challenge_id)
        return None if raw is None else json.loads(raw)

    def decide_challenge(self, challenge_id: str, status: str, extra: dict,
                         may: Callable[[dict], bool] | None = None) -> dict | None:
        """Move a challenge to ``status`` once, if ``may`` says it can move; None if it cannot.

        By default ``may`` lets a pending challenge move.
        ``extra`` is merged in, and a key it sets to None is removed (an accept's ``accepting_since``
        once it is done).
        Of two moves at once, only one finds it movable.
        """
        key, legacy = self._challenge_key(challenge_id), self._k("challenges")
        while True:
            with self.redis.pipeline(transaction=True) as pipe:
                try:
                    # WATCH-guarded: what lets only one of two moves at once find it movable
                    pipe.watch(key, legacy)
                    raw = pipe.get(key)
                    old = raw is None
                    if old:
                        raw = pipe.hget(legacy, challenge_id)
                    if raw is None:
                        return None
                    challenge = json.loads(raw)
                    if not (may(challenge) if may is not None else challenge["status"] == "pending"):
                        return None
                    challenge = {**challenge, "status": status, **extra}
                    challenge = {k: v for k, v in challenge.items() if not (k in extra and v is None)}
                    # Answered (accepted, declined) or withdrawn, it leaves the pending counts.
                    # It is then kept CHALLENGE_KEEP_MS more.
                    final = status not in ("pending", "accepting")
                    pipe.multi()
                    body = json.dumps(challenge, sort_keys=True)
                    if final or old:
                        pipe.set(key, body, px=CHALLENGE_KEEP_MS if final else CHALLENGE_KEEP_MS * 2)
                    else:
                        pipe.set(key, body, keepttl=True)
                    if old:
                        # one an older server stored moves to its own key
                        pipe.hdel(legacy, challenge_id)
                    if final and "by" in challenge:
                        for pending in self._pending_keys(challenge):
                            pipe.zrem(pending, challenge_id)
                    pipe.execute()
                    return challenge
                except WatchError:
                    continue
