"""InMemoryArenaStore: the arena's keys in dicts, with RedisArenaStore's methods and answers.

It is for the use-case tests, which build the arena without Redis.
A challenge is forgotten CHALLENGE_KEEP_MS past its expiry or its answer, timed by ``clock`` (ms
since the epoch).
A bot's stream keeps its last ``stream_max_len`` entries.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Callable

from service.store.arena import CHALLENGE_KEEP_MS, STREAM_MAX_LEN
from service.store.base import Clock, system_clock


def _stream_id(entry_id: str) -> tuple[int, int]:
    """(ms, seq) of a stream id ("0" and "<ms>" stand for their first entry, as XREAD reads them)."""
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


class InMemoryArenaStore:
    """Bot accounts, bots' streams, matches, ratings and challenges, in one process."""

    def __init__(self, prefix: str = "ginbox", *, stream_max_len: int = STREAM_MAX_LEN, clock: Clock | None = None):
        self.prefix = f"{prefix}:arena"
        self.stream_max_len = stream_max_len
        self.clock = clock or system_clock
        # Profiles, marks, challenges and ratings are kept as the JSON Redis would hold.
        # So every read hands out a fresh copy, as a Redis reply does.
        self._bots: dict[str, str] = {}  # name -> profile JSON (with its token hash)
        self._bot_tokens: dict[str, str] = {}  # token hash -> name
        self._bot_names: dict[str, str] = {}  # the name in lower case -> name
        self._seated: dict[tuple[str, str], dict[str, int]] = {}  # (name, kind) -> id -> when (ms)
        self._streams: dict[str, list[tuple[tuple[int, int], str, str]]] = {}  # name -> [(id, type, data JSON)]
        self._game_of: dict[str, str] = {}
        self._finished: dict[str, dict[int, str]] = {}
        self._matches_over: set[str] = set()
        self._seeds: dict[str, str] = {}  # match id -> seed (hex)
        self._seat_tokens: dict[str, dict[int, str]] = {}
        self._matches: dict[str, int] = {}  # match id -> when saved (ms)
        self._in_play: dict[str, int] = {}  # match id -> when counted (ms): the server's count
        self._callers_in_play: dict[str, dict[str, int]] = {}  # caller -> the same, its own count
        self._ratings: dict[str, dict[str, str]] = {}  # variant -> name -> rating JSON
        self._rated: set[str] = set()
        self._in_play_games: dict[str, set[str]] = {}  # name -> its games not seen to end
        self._seen: dict[str, int] = {}  # name -> when it last showed itself (ms)
        self._challenges: dict[str, tuple[str, int]] = {}  # id -> (JSON, when forgotten, ms)
        self._pending: dict[str, dict[str, int]] = {}  # "bot:<name>" or "by:<who>" -> id -> expires (ms)
        # What Redis does in one script or under WATCH is done here under one lock.
        # That is a name taken in any case, the first seed of a match, the caps of matches and
        # challenges, and a challenge moved once.
        self._lock = threading.RLock()
        self._appended = threading.Condition(self._lock)

    # -- bot accounts -------------------------------------------------------------------------------

    def register_bot(self, name: str, profile: dict, token_hash: str) -> bool:
        """Record a new bot account; False if the name is taken in any case (nothing is written then)."""
        with self._lock:
            if name.lower() in self._bot_names or name in self._bots:
                return False
            self._bots[name] = json.dumps({**profile, "token_hash": token_hash}, sort_keys=True)
            self._bot_names[name.lower()] = name
            self._bot_tokens[token_hash] = name
            return True

    def bot(self, name: str) -> dict | None:
        with self._lock:
            raw = self._bots.get(name)
        return None if raw is None else json.loads(raw)

    def update_bot(self, name: str, changes: dict) -> dict | None:
        """Merge ``changes`` into the bot's profile; the profile (with its token hash), or None if no such bot."""
        with self._lock:
            raw = self._bots.get(name)
            if raw is None:
                return None
            bot = {**json.loads(raw), **changes}
            self._bots[name] = json.dumps(bot, sort_keys=True)
            return bot

    def replace_bot_token(self, name: str, old_hash: str, new_hash: str, usable: bool) -> bool:
        """The bot's token hash ``old_hash`` becomes ``new_hash`` (a token of it is known by its hash only if
        ``usable``); False, writing nothing, if ``old_hash`` is not the bot's current one."""
        with self._lock:
            raw = self._bots.get(name)
            if raw is None or json.loads(raw)["token_hash"] != old_hash or self._bot_tokens.get(old_hash) != name:
                return False
            self._bots[name] = json.dumps({**json.loads(raw), "token_hash": new_hash}, sort_keys=True)
            del self._bot_tokens[old_hash]
            if usable:
                self._bot_tokens[new_hash] = name
            return True

    def bot_name(self, name: str) -> str | None:
        """The name of the bot account called ``name`` in any case, as it was registered; None if none is."""
        with self._lock:
            if name in self._bots:
                return name
            return self._bot_names.get(name.lower())

    def bot_of_token(self, token_hash: str) -> str | None:
        with self._lock:
            return self._bot_tokens.get(token_hash)

    def seat_bot(self, name: str, kind: str, item_id: str, ts_ms: int) -> None:
        """Remember that the bot was seated in a game (``kind`` "games") or a match ("matches")."""
        with self._lock:
            self._seated.setdefault((name, kind), {}).setdefault(item_id, ts_ms)
            if kind == "games":
                self._in_play_games.setdefault(name, set()).add(item_id)

    def games_in_play(self, name: str, after: str | None, count: int) -> list[str]:
        """The ids of the bot's games in play (as far as their ends were seen), in id order, after ``after``."""
        with self._lock:
            ids = sorted(g for g in self._in_play_games.get(name, ()) if after is None or g > after)
        return ids[:count]

    def game_left_play(self, name: str, game_id: str) -> None:
        """Take a game that is over (or was never made) out of the bot's games in play."""
        with self._lock:
            self._in_play_games.get(name, set()).discard(game_id)

    def last_seated(self, names: list[str]) -> dict[str, int | None]:
        """When each bot was last seated in a game (ms), None if never."""
        with self._lock:
            return {name: max(self._seated.get((name, "games"), {}).values(), default=None) for name in names}

    def saw_bot(self, name: str, ts_ms: int) -> None:
        """Record that the bot showed itself (its stream, its games, its challenges) at ``ts_ms``."""
        with self._lock:
            self._seen[name] = ts_ms

    def last_seen(self, names: list[str]) -> dict[str, int | None]:
        """When each bot last showed itself (saw_bot), None if never."""
        with self._lock:
            return {name: self._seen.get(name) for name in names}

    def bot_names(self, after: str | None, count: int) -> list[str]:
        """Bot accounts' names in name order (as Redis compares bytes), after ``after``."""
        with self._lock:
            names = sorted(self._bots, key=lambda n: n.encode())
        return [n for n in names if after is None or n.encode() > after.encode()][:count]

    def seated(self, name: str, kind: str, limit: int = 100) -> tuple[int, list[str]]:
        """(how many, the newest ``limit`` ids) of the bot's games or matches."""
        with self._lock:
            items = dict(self._seated.get((name, kind), {}))
        newest = sorted(items, key=lambda i: (items[i], i), reverse=True)
        return len(items), newest[:limit]

    # -- each bot's stream ------------------------------------------------------------------------

    def notify(self, name: str, kind: str, data: dict) -> str:
        """Add an event to the bot's stream; its id. The stream keeps its last ``stream_max_len`` entries."""
        body = json.dumps(data, separators=(",", ":"), sort_keys=True)
        with self._appended:
            stream = self._streams.setdefault(name, [])
            now = self.clock()
            # Stream ids are <ms>-<seq> from clock, each after the last, as XADD makes them.
            last = stream[-1][0] if stream else (0, 0)
            entry_id = (now, 0) if now > last[0] else (last[0], last[1] + 1)
            stream.append((entry_id, kind, body))
            # the stream runs out as its key does on Redis
            del stream[:-self.stream_max_len]
            self._appended.notify_all()
        return f"{entry_id[0]}-{entry_id[1]}"

    def read_stream(self, name: str, after: str, wait_s: float | None = None, count: int = 256) -> list[tuple]:
        """[(id, type, data)] after the entry ``after`` ("0": from the start), waiting up to ``wait_s``
        seconds for the first (None: no wait)."""
        since = _stream_id(after)
        deadline = time.monotonic() + (wait_s or 0)
        with self._appended:
            while True:
                entries = [e for e in self._streams.get(name, ()) if e[0] > since][:count]
                remaining = deadline - time.monotonic()
                if entries or remaining <= 0:
                    break
                self._appended.wait(remaining)
        return [(f"{ms}-{seq}", kind, json.loads(body)) for (ms, seq), kind, body in entries]

    # -- games and matches ------------------------------------------------------------------------

    def mark_game(self, game_id: str, info: dict) -> None:
        """Record what a game belongs to (a match's board and table, or a rated game)."""
        with self._lock:
            self._game_of[game_id] = json.dumps(info, sort_keys=True)

    def game_of(self, game_id: str) -> dict | None:
        with self._lock:
            raw = self._game_of.get(game_id)
        return None if raw is None else json.loads(raw)

    def games_of(self, game_ids: list[str]) -> dict[str, dict]:
        """``game_of`` of many games in one read: the marked ones only."""
        with self._lock:
            rows = {gid: self._game_of.get(gid) for gid in game_ids}
        return {gid: json.loads(raw) for gid, raw in rows.items() if raw is not None}

    def mark_finished(self, match_id: str, index: int, points: list[int]) -> None:
        """Record that the match's game ``index`` is over with these points (what advance records)."""
        with self._lock:
            self._finished.setdefault(match_id, {})[int(index)] = json.dumps(points)

    def finished(self, match_id: str, among: list[int] | None = None) -> dict[int, list[int]]:
        """The match's games seen to end, by index: all of them, or those of ``among`` alone."""
        with self._lock:
            raw = dict(self._finished.get(match_id, {}))
        wanted = raw if among is None else [int(i) for i in among if int(i) in raw]
        return {index: json.loads(raw[index]) for index in wanted}

    def mark_match_over(self, match_id: str) -> None:
        """Record that the match is over: its games read like any other from now on."""
        with self._lock:
            self._matches_over.add(match_id)

    def match_over(self, match_id: str) -> bool:
        """Whether the match was recorded as over."""
        with self._lock:
            return match_id in self._matches_over

    def matches_over(self, match_ids: list[str]) -> set[str]:
        """The matches of ``match_ids`` recorded as over."""
        with self._lock:
            return {m for m in match_ids if m in self._matches_over}

    def save_match_seed(self, match_id: str, seed: bytes, ts_ms: int,
                        seat_tokens: dict[int, str] | None = None) -> bytes:
        """Record a new match's secret seed (and its persons' token hashes by participant) at once;
        the seed kept: only the first save of a match id writes."""
        with self._lock:
            if match_id not in self._seeds:
                self._seeds[match_id] = seed.hex()
                if seat_tokens:
                    self._seat_tokens.setdefault(match_id, {}).update({int(i): h for i, h in seat_tokens.items()})
                self._matches[match_id] = ts_ms
            return bytes.fromhex(self._seeds[match_id])

    def match_seed(self, match_id: str) -> bytes | None:
        with self._lock:
            kept = self._seeds.get(match_id)
        return None if kept is None else bytes.fromhex(kept)

    def match_seat_tokens(self, match_id: str) -> dict[int, str]:
        """Participant index -> the token hash its seats play with (a person's; bots have their own)."""
        with self._lock:
            return dict(self._seat_tokens.get(match_id, {}))

    def claim_match(self, match_id: str, caller: str | tuple[str, ...], overall: int, per_caller: int,
                    now_ms: int) -> int:
        """Count a new match as in play for ``caller`` (one, or several) and the server: 1, or -1 if
        the first caller has ``per_caller`` in play already, -3 if a further one has, -2 if the server
        has ``overall`` (nothing is written then); 1 for a match the first caller has counted already."""
        callers = (caller,) if isinstance(caller, str) else tuple(caller)
        with self._lock:
            server = self._in_play
            mine = [self._callers_in_play.setdefault(c, {}) for c in callers]
            for counted in (server, *mine):
                for over in [m for m in counted if m in self._matches_over]:
                    del counted[over]
            if match_id in mine[0]:
                for counted in (server, *mine):
                    counted[match_id] = now_ms
                return 1
            for i, counted in enumerate(mine):
                if per_caller > 0 and len(counted) >= per_caller:
                    return -1 if i == 0 else -3
            if overall > 0 and len(server) >= overall:
                return -2
            for counted in (server, *mine):
                counted[match_id] = now_ms
            return 1

    def release_match(self, match_id: str, caller: str | tuple[str, ...]) -> None:
        """Uncount a match that was claimed and then not made."""
        with self._lock:
            self._in_play.pop(match_id, None)
            for c in (caller,) if isinstance(caller, str) else caller:
                self._callers_in_play.get(c, {}).pop(match_id, None)

    def matches(self, limit: int = 100) -> list[str]:
        with self._lock:
            newest = sorted(self._matches, key=lambda m: (self._matches[m], m), reverse=True)
        return newest[:limit]

    # -- ratings ----------------------------------------------------------------------------------

    def ratings(self, variant: str) -> dict[str, dict]:
        with self._lock:
            raw = dict(self._ratings.get(variant, {}))
        return {name: json.loads(r) for name, r in raw.items()}

    def ratings_of(self, variant: str, names: list[str]) -> dict[str, dict]:
        """The ratings of ``names`` in ``variant`` (those rated only)."""
        with self._lock:
            rows = {name: self._ratings.get(variant, {}).get(name) for name in names}
        return {name: json.loads(raw) for name, raw in rows.items() if raw is not None}

    def rating(self, variant: str, name: str) -> dict | None:
        with self._lock:
            raw = self._ratings.get(variant, {}).get(name)
        return None if raw is None else json.loads(raw)

    def apply_period(self, variant: str, period_id: str,
                     update: Callable[[dict[str, dict]], dict[str, dict]]) -> bool:
        """Apply one rating period once: ``update(current ratings)`` gives the changed ones; False
        if this period was applied already."""
        with self._lock:
            if period_id in self._rated:
                return False
            changed = update(self.ratings(variant))
            if changed:
                self._ratings.setdefault(variant, {}).update(
                    {name: json.dumps(r, sort_keys=True) for name, r in changed.items()})
            self._rated.add(period_id)
            return True

    # -- challenges -------------------------------------------------------------------------------

    # The challenges an older server kept in one hash have no counterpart here.
    # A challenge runs out as its key does on Redis.

    @staticmethod
    def _pending_names(challenge: dict) -> list[str]:
        return [f"bot:{challenge['to']}", f"by:{challenge['by']}"]

    def _kept(self, challenge_id: str) -> tuple[str, int] | None:
        """The challenge's JSON and when it is forgotten, unless it has been already."""
        kept = self._challenges.get(challenge_id)
        if kept is not None and self.clock() >= kept[1]:
            del self._challenges[challenge_id]
            return None
        return kept

    def save_challenge(self, challenge_id: str, challenge: dict) -> None:
        """Write a challenge over the one kept (its time to live unchanged)."""
        body = json.dumps(challenge, sort_keys=True)
        with self._lock:
            kept = self._kept(challenge_id)
            self._challenges[challenge_id] = (body, kept[1] if kept else self.clock() + CHALLENGE_KEEP_MS)

    def add_challenge(self, challenge: dict, *, per_bot: int, per_challenger: int, now_ms: int) -> int:
        """Store a new pending challenge: 1, or -1 if its bot has ``per_bot`` pending already, -2 if
        its challenger has ``per_challenger``, 0 if the id is taken (nothing is written then)."""
        challenge_id = challenge["challenge_id"]
        with self._lock:
            bot, by = (self._pending.setdefault(n, {}) for n in self._pending_names(challenge))
            for pending in (bot, by):
                for expired in [c for c, expires in pending.items() if expires <= now_ms]:
                    del pending[expired]
            if per_bot > 0 and len(bot) >= per_bot:
                return -1
            if per_challenger > 0 and len(by) >= per_challenger:
                return -2
            if self._kept(challenge_id) is not None:
                return 0
            ttl = max(1, challenge["expires"] - now_ms) + CHALLENGE_KEEP_MS
            self._challenges[challenge_id] = (json.dumps(challenge, sort_keys=True), self.clock() + ttl)
            bot[challenge_id] = by[challenge_id] = challenge["expires"]
            return 1

    def pending_challenge_ids(self, name: str, by: str, now_ms: int) -> tuple[list[str], list[str]]:
        """(to the bot, from it: ``by``) the ids of the challenges pending and not expired at ``now_ms``."""
        with self._lock:
            to_bot, from_it = (dict(self._pending.get(key, {})) for key in (f"bot:{name}", f"by:{by}"))
        return ([c for c, e in sorted(to_bot.items(), key=lambda x: (x[1], x[0])) if e > now_ms],
                [c for c, e in sorted(from_it.items(), key=lambda x: (x[1], x[0])) if e > now_ms])

    def challenge(self, challenge_id: str) -> dict | None:
        with self._lock:
            kept = self._kept(challenge_id)
        return None if kept is None else json.loads(kept[0])

    def decide_challenge(self, challenge_id: str, status: str, extra: dict,
                         may: Callable[[dict], bool] | None = None) -> dict | None:
        """Move a challenge to ``status`` once, if ``may`` says it can move (by default: it is pending);
        None if it cannot. ``extra`` is merged in, and a key it sets to None is removed. Answered or
        withdrawn, it leaves the pending counts and is kept CHALLENGE_KEEP_MS more."""
        with self._lock:
            kept = self._kept(challenge_id)
            if kept is None:
                return None
            challenge = json.loads(kept[0])
            if not (may(challenge) if may is not None else challenge["status"] == "pending"):
                return None
            challenge = {**challenge, "status": status, **extra}
            challenge = {k: v for k, v in challenge.items() if not (k in extra and v is None)}
            final = status not in ("pending", "accepting")
            forgotten = self.clock() + CHALLENGE_KEEP_MS if final else kept[1]
            self._challenges[challenge_id] = (json.dumps(challenge, sort_keys=True), forgotten)
            if final and "by" in challenge:
                for name in self._pending_names(challenge):
                    self._pending.get(name, {}).pop(challenge_id, None)
            return challenge
