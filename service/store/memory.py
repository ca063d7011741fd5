"""The event store, its game index and its snapshots in one process, for unit tests and tools."""

from __future__ import annotations

import bisect
import copy
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from service.store.base import (
    Appended,
    Clock,
    EventStore,
    GameIndex,
    Recorded,
    SnapshotStore,
    canonical_json,
    check_filter,
    check_game_id,
    check_limit,
    check_version,
    decode_cursor,
    default_codec,
    encode_cursor,
    index_member,
    system_clock,
)
from service.store.archives import DecodedArchives, check_codec, encode_log
from service.store.errors import ConcurrencyError, IdempotencyConflict, StoreError


@dataclass
class _Game:
    log: list[tuple[int, str]] = field(default_factory=list)  # (ts, event JSON); version = index + 1
    idem: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: the archived record, once the game is over and archived (``log`` is then empty)
    archive: bytes | None = None
    #: the version of an archived game (its log holds none)
    archived_version: int = 0


class InMemoryGameIndex(GameIndex):
    """The game index as a dict of summaries, written by the store it belongs to as it appends."""

    def __init__(self):
        self._summaries: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def project(self, game_id: str, version: int, ts: int, meta: dict) -> None:
        """Record an append of the game: its new version at ``ts``, with the append's ``meta``."""
        with self._lock:
            summary = self._summaries.setdefault(
                game_id,
                {"game_id": game_id, "variant": None, "status": None, "created": meta.get("created", ts), "summary": None},
            )
            for name in ("status", "variant", "summary"):
                if name in meta:
                    summary[name] = copy.deepcopy(meta[name])
            summary["updated"], summary["version"] = ts, version

    def status_of(self, game_id: str) -> str | None:
        """The status the game's latest append gave (None: no append gave one, or no such game)."""
        with self._lock:
            summary = self._summaries.get(game_id)
            return None if summary is None else summary["status"]

    def list_games(self, status=None, variant=None, cursor=None, limit=50, hidden=None):
        check_limit(limit)
        check_filter("status", status)
        check_filter("variant", variant)
        after = decode_cursor(cursor) if cursor is not None else None
        with self._lock:
            rows = [
                (index_member(summary["created"], game_id), copy.deepcopy(summary))
                for game_id, summary in self._summaries.items()
                if (status is None or summary["status"] == status) and (variant is None or summary["variant"] == variant)
            ]
        rows = sorted(row for row in rows if after is None or row[0] > after)
        page = rows[:limit]
        next_cursor = encode_cursor(page[-1][0]) if len(rows) > limit else None
        left_out = hidden([summary["game_id"] for _, summary in page]) if hidden is not None and page else set()
        return [summary for _, summary in page if summary["game_id"] not in left_out], next_cursor


class InMemoryEventStore(EventStore):
    """Keeps every game in a dict under one lock; events are held as JSON text, as in Redis."""

    def __init__(self, codec=None, clock: Clock | None = None, *, index: InMemoryGameIndex | None = None):
        self.codec = codec if codec is not None else default_codec()
        self.clock = clock or system_clock
        self.index = index if index is not None else InMemoryGameIndex()
        self._games: dict[str, _Game] = {}
        self._changed = threading.Condition(threading.Lock())
        self.archives = DecodedArchives()
        #: told the id of each game archived (its snapshot store forgets the game's snapshots)
        self.archive_hooks: list = []

    def append_outcome(self, game_id, events, expected_version, idempotency_key=None, *, fingerprint=None,
                       meta=None) -> Appended:
        _, payloads, fingerprint, meta = self._prepare_append(
            game_id, events, expected_version, idempotency_key, fingerprint, meta
        )
        ts = self.clock()
        with self._changed:
            game = self._games.get(game_id) or _Game()
            # the key first: a retry of an append that succeeded must answer the same, even
            # though the version it expected is stale now
            if idempotency_key is not None and idempotency_key in game.idem:
                first_fingerprint, first_version = game.idem[idempotency_key]
                if first_fingerprint != fingerprint:
                    raise IdempotencyConflict(game_id, idempotency_key, first_fingerprint, first_version)
                return Appended(first_version, replayed=True)
            actual = len(game.log) or game.archived_version
            if actual != expected_version:
                raise ConcurrencyError(game_id, expected_version, actual)
            if game.archive is not None:
                raise StoreError(f"game {game_id!r} is archived: its log is over")
            game.log.extend((ts, payload) for payload in payloads)
            version = len(game.log)
            if idempotency_key is not None:
                game.idem[idempotency_key] = (fingerprint, version)
            self._games[game_id] = game
            self.index.project(game_id, version, ts, meta)
            self._changed.notify_all()
            return Appended(version)

    def idempotent_result(self, game_id, key):
        check_game_id(game_id)
        with self._changed:
            game = self._games.get(game_id)
            return game.idem.get(key) if game else None

    def load(self, game_id, after=0, upto=None) -> list[Recorded]:
        check_game_id(game_id)
        check_version("after", after)
        if upto is not None:
            check_version("upto", upto)
        with self._changed:
            game = self._games.get(game_id)
            entries = list(game.log[after:upto]) if game else []
            record = game.archive if game else None
        if record is not None:
            return self._from_archive(self.archives.entries(game_id, record).events, after, upto)
        return [self._recorded(after + i + 1, ts, payload) for i, (ts, payload) in enumerate(entries)]

    def version(self, game_id) -> int:
        check_game_id(game_id)
        with self._changed:
            game = self._games.get(game_id)
            return (len(game.log) or game.archived_version) if game else 0

    def is_archived(self, game_id) -> bool:
        check_game_id(game_id)
        with self._changed:
            game = self._games.get(game_id)
            return game is not None and game.archive is not None

    def archive(self, game_id) -> bool:
        check_game_id(game_id)
        check_codec(self.codec)
        with self._changed:
            game = self._games.get(game_id)
            log = list(game.log) if game is not None and game.archive is None else []
        if not log:
            return False
        record = encode_log(game_id, log)
        with self._changed:
            if game.archive is not None or game.log != log:
                return False  # archived meanwhile (the log of a finished game never grows)
            game.archive, game.archived_version, game.log = record, len(log), []
        for hook in self.archive_hooks:
            hook(game_id)
        return True

    def wait_for_events(self, game_id, after, timeout_s) -> list[Recorded]:
        check_game_id(game_id)
        check_version("after", after)
        deadline = time.monotonic() + max(0.0, timeout_s)
        with self._changed:
            while True:
                game = self._games.get(game_id)
                if game and (len(game.log) or game.archived_version) > after:
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return []
                self._changed.wait(remaining)
        return self.load(game_id, after)



class InMemorySnapshotStore(SnapshotStore):
    """Snapshots of the games of one InMemoryEventStore (which says what versions exist); the newest ``keep`` stay."""

    def __init__(self, store: InMemoryEventStore, keep: int = 2):
        if keep < 1:
            raise ValueError("a snapshot store keeps at least one snapshot a game")
        self.store = store
        self.keep = keep
        self._saved: dict[str, dict[int, str]] = {}  # game id -> version -> state JSON
        self._lock = threading.Lock()
        # an archived game's snapshots go with its log (as on Redis, in the same step)
        getattr(store, "archive_hooks", []).append(self.delete)

    def save(self, game_id, version, state, keep=None) -> None:
        check_game_id(game_id)
        check_version("version", version)
        keep = self.keep if keep is None else keep
        if keep < 1:
            raise ValueError("a snapshot store keeps at least one snapshot a game")
        payload = canonical_json(state)
        current = self.store.version(game_id)
        if not 1 <= version <= current:
            raise ValueError(f"snapshot version {version} outside 1..{current} of game {game_id!r}")
        with self._lock:
            saved = self._saved.setdefault(game_id, {})
            saved[version] = payload
            for old in sorted(saved)[: -keep]:
                del saved[old]

    def latest(self, game_id, upto=None):
        check_game_id(game_id)
        with self._lock:
            saved = self._saved.get(game_id, {})
            versions = sorted(saved)
            if upto is not None:
                versions = versions[: bisect.bisect_right(versions, upto)]
            if not versions:
                return None
            return versions[-1], json.loads(saved[versions[-1]])

    def delete(self, game_id) -> None:
        check_game_id(game_id)
        with self._lock:
            self._saved.pop(game_id, None)
