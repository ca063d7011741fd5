"""The EventStore interface: one append-only log of events per game, the source of truth.

Events go in as domain objects and are written as JSON ``{"type", "v", "data"}`` through a
codec (by default ``service.rules.events``).
The store adds the version (1, 2, ... per game) and a timestamp.
Nothing ever changes a recorded event.
Once a game is over, its log may be rewritten once into its archived record
(:meth:`EventStore.archive`), which reads back as every event exactly as it was recorded.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, NamedTuple

from service.store.errors import InvalidCursor

Clock = Callable[[], int]

# created timestamps are stored inverted in fixed width so that plain lexicographic order of
# the index members is "newest first, then by game id" -- the order of list_games
MAX_TS = 10**15 - 1
MAX_LIST_LIMIT = 500
META_FIELDS = ("status", "variant", "created", "summary")
_GAME_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
# status and variant name index keys, so they stay plain words (no ':' to split on)
_LABEL = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def system_clock() -> int:
    """Milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


def canonical_json(obj: Any) -> str:
    """The one JSON form the store writes and fingerprints: sorted keys, no spaces."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def default_fingerprint(encoded_events: list[dict]) -> str:
    """sha256 of the canonical JSON of the encoded events: what an idempotency key stands for."""
    return hashlib.sha256(canonical_json(encoded_events).encode("utf-8")).hexdigest()


def scoped_idempotency_key(scope: str, key: str) -> str:
    """The name under which ``key``, chosen by ``scope`` (a seat), is recorded in its game.

    ``scope`` is a non-empty str without whitespace, ``key`` a non-empty str; else ValueError.
    """
    # A game's idempotency keys are one table.
    # The callers that send them (the seats) choose them independently, so each key is recorded under its scope.
    # The same key chosen by two seats names two records.
    # So one seat's request can never answer, or be refused for, another's.
    # The scope ends at the first space (a scope holds none), so no two pairs give one name.
    # And a key recorded without a scope (holding no space) is never one of them.
    if not isinstance(scope, str) or not scope or any(c.isspace() for c in scope):
        raise ValueError(f"an idempotency scope is a non-empty str without whitespace, not {scope!r}")
    if not isinstance(key, str) or not key:
        raise ValueError(f"idempotency key must be a non-empty str, not {key!r}")
    return f"{scope} {key}"


def default_codec():
    """The engine's events in their packed form (service.rules.codec), imported only when a store is built without a codec."""
    from service.rules import codec

    return codec


def check_game_id(game_id: str) -> str:
    """The game id, if usable inside a Redis hash tag (letters, digits, ``_.:-``; no braces)."""
    if not isinstance(game_id, str) or not _GAME_ID.match(game_id):
        raise ValueError(f"invalid game id {game_id!r}")
    return game_id


def check_version(name: str, value: Any) -> int:
    """A non-negative int version argument."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an int >= 0, not {value!r}")
    return value


def check_meta(meta: dict | None) -> dict:
    """The meta fields the index knows (status, variant: str; created: ms int; summary: a JSON object).

    ``summary`` is what a list of games shows of the game beside its status (players, scores
    ...): the index keeps the latest one it was given, as it is.
    """
    meta = dict(meta or {})
    unknown = set(meta) - set(META_FIELDS)
    if unknown:
        raise ValueError(f"unknown meta fields {sorted(unknown)}; known: {META_FIELDS}")
    for name in ("status", "variant"):
        if name in meta and not (isinstance(meta[name], str) and _LABEL.match(meta[name])):
            raise ValueError(f"meta {name} must be a word of letters, digits and '_.-', not {meta[name]!r}")
    if "summary" in meta and not isinstance(meta["summary"], dict):
        raise ValueError(f"meta summary must be a JSON object, not {meta['summary']!r}")
    if "created" in meta:
        check_version("created", meta["created"])
        if meta["created"] > MAX_TS:
            raise ValueError(f"meta created {meta['created']} is out of range")
    return meta


def check_filter(name: str, value: str | None) -> str | None:
    """A list_games filter: None, or a word like the status and variant meta fields."""
    if value is not None and not (isinstance(value, str) and _LABEL.match(value)):
        raise ValueError(f"{name} filter must be a word of letters, digits and '_.-', not {value!r}")
    return value


def check_limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIST_LIMIT:
        raise ValueError(f"limit must be an int in 1..{MAX_LIST_LIMIT}, not {limit!r}")
    return limit


def index_member(created: int, game_id: str) -> str:
    """The sort key of a game in the index: newest first, ties by game id."""
    return f"{MAX_TS - created:015d}:{game_id}"


def encode_cursor(member: str) -> str:
    """The cursor pointing just after ``member``: its 15 digits, then the game id (no separator)."""
    head, _, game_id = member.partition(":")
    return head + game_id


def decode_cursor(cursor: str) -> str:
    """The index member a cursor points after; InvalidCursor if it is not one of ours."""
    if not isinstance(cursor, str):
        raise InvalidCursor(f"invalid cursor {cursor!r}")
    head, game_id = cursor[:15], cursor[15:]
    if not (len(head) == 15 and head.isascii() and head.isdigit() and _GAME_ID.match(game_id)):
        raise InvalidCursor(f"invalid cursor {cursor!r}")
    return f"{head}:{game_id}"


@dataclass(frozen=True)
class Recorded:
    """One event of a game's log: its version, when it was appended, the event and its JSON form.

    ``raw`` is the stored form: the codec's ``{"type", "v", "data"}`` plus ``ts`` and ``version``.
    """

    version: int
    ts: int
    event: Any
    raw: dict = field(compare=False, hash=False, repr=False)


class Appended(NamedTuple):
    """What EventStore.append_outcome answers: the game's version after the append, and whether it replayed.

    ``replayed``: the append was the replay of an earlier one with the same idempotency key.
    Nothing was appended then, and the version is that first append's.
    """

    version: int
    # The versions alone cannot tell a replay.
    # A creation's retry has events of its own (another seed) that may be as many as the first request's.
    # A move's retry has as many as its first sending.
    replayed: bool = False


class EventStore(ABC):
    """An append-only event log per game with optimistic concurrency and idempotent appends.

    The recorder, and nothing else: append, read a range, read from a version (or wait for what
    comes after it).
    What is derived from the logs has interfaces of its own: the game index (:class:`GameIndex`,
    ``self.index``) and the snapshots (:class:`SnapshotStore`).
    """

    codec: Any
    clock: Clock
    #: the projection of every game's status and variant that each append brings up to date
    index: "GameIndex"

    # -- writing -----------------------------------------------------------------------------

    def append(self, game_id: str, events: Iterable[Any], expected_version: int, idempotency_key: str | None = None,
               **options: Any) -> int:
        """append_outcome's version alone (``options``: its ``fingerprint`` and ``meta``)."""
        return self.append_outcome(game_id, events, expected_version, idempotency_key, **options).version

    @abstractmethod
    def append_outcome(
        self,
        game_id: str,
        events: Iterable[Any],
        expected_version: int,
        idempotency_key: str | None = None,
        *,
        fingerprint: str | None = None,
        meta: dict | None = None,
    ) -> Appended:
        """Append events if the game is at ``expected_version``; the new version, not replayed.

        A key this game used before, with the same fingerprint, answers that append's version,
        replayed (nothing is appended), even if ``expected_version`` is stale.
        With another fingerprint it raises IdempotencyConflict.
        Otherwise a version mismatch raises ConcurrencyError.
        The same append records ``meta`` (status, variant, created) in the game index.
        """

    @abstractmethod
    def idempotent_result(self, game_id: str, key: str) -> tuple[str, int] | None:
        """(fingerprint, version) recorded for an idempotency key, or None if unseen."""

    # -- reading -----------------------------------------------------------------------------

    @abstractmethod
    def load(self, game_id: str, after: int = 0, upto: int | None = None) -> list[Recorded]:
        """The events with ``after < version <= upto`` (all after ``after`` when upto is None)."""

    def tail(self, game_id: str, known: int) -> list[Recorded] | None:
        """The events after version ``known`` (>= 1), or None if the log does not hold event ``known``.

        What a reader holding the state after ``known`` needs to bring it up to date, in one read:
        None says the log is shorter than the reader believes (a Redis that lost writes), so that
        the state it holds is not the log's.
        """
        check_version("known", known)
        if known < 1:
            raise ValueError("known must be >= 1 (a state the log recorded)")
        records = self.load(game_id, after=known - 1)
        if not records or records[0].version != known:
            return None
        return records[1:]

    @abstractmethod
    def version(self, game_id: str) -> int:
        """The number of events of the game (0: no such game)."""

    def exists(self, game_id: str) -> bool:
        """True once the game has at least one event."""
        return self.version(game_id) > 0

    @abstractmethod
    def wait_for_events(self, game_id: str, after: int, timeout_s: float) -> list[Recorded]:
        """The events after ``after``, waiting up to ``timeout_s`` for one; [] on timeout."""

    # -- archiving -----------------------------------------------------------------------------

    def archive(self, game_id: str) -> bool:
        """Rewrite a finished game's log once into its archived record; True if this call did.

        The record is written, read back and checked to give back the log exactly; only then are
        the log and the game's snapshots dropped, in one step.
        Every read answers the same before and after.
        False when there is no log to archive: the game is archived already, or does not exist.
        GameNotArchivable (nothing changed) for a game not over, or a log the record would not
        give back.
        """
        raise NotImplementedError(f"{type(self).__name__} does not archive games")

    def is_archived(self, game_id: str) -> bool:
        """Whether the game's log is held as its archived record only."""
        return False

    # -- helpers shared by the implementations -------------------------------------------------

    def _encode(self, events: Iterable[Any]) -> list[dict]:
        encoded = []
        for event in events:
            raw = self.codec.encode(event)
            if not (
                isinstance(raw, dict)
                and isinstance(raw.get("type"), str)
                and isinstance(raw.get("v"), int)
                and isinstance(raw.get("data"), dict)
            ):
                raise TypeError(f"codec.encode({event!r}) returned {raw!r}, not {{'type', 'v', 'data'}}")
            encoded.append({"type": raw["type"], "v": raw["v"], "data": raw["data"]})
        if not encoded:
            raise ValueError("append needs at least one event")
        return encoded

    def _prepare_append(self, game_id, events, expected_version, idempotency_key, fingerprint, meta):
        """Validate the arguments of append; return (encoded events, their JSON, fingerprint, meta)."""
        check_game_id(game_id)
        check_version("expected_version", expected_version)
        if idempotency_key is not None and (not isinstance(idempotency_key, str) or not idempotency_key):
            raise ValueError(f"idempotency key must be a non-empty str, not {idempotency_key!r}")
        meta = check_meta(meta)
        encoded = self._encode(events)
        # a codec that packs its events (the engine's: service.rules.events.pack) keeps the log small
        pack = getattr(self.codec, "pack", canonical_json)
        payloads = [pack(e) for e in encoded]
        if fingerprint is None:
            # only an idempotency key records what it stood for: without one there is nothing to compute
            fingerprint = default_fingerprint(encoded) if idempotency_key is not None else ""
        elif not isinstance(fingerprint, str) or not fingerprint:
            raise ValueError(f"fingerprint must be a non-empty str, not {fingerprint!r}")
        return encoded, payloads, fingerprint, meta

    def _from_archive(self, entries: list, after: int, upto: int | None) -> list[Recorded]:
        """The Recorded events ``after < version <= upto`` of an archived log ([(ts, stored text)])."""
        end = len(entries) if upto is None else min(upto, len(entries))
        return [self._recorded(v, entries[v - 1][0], entries[v - 1][1]) for v in range(after + 1, end + 1)]

    def _recorded(self, version: int, ts: int, payload: str | bytes) -> Recorded:
        # the wire form, from a packed event or from the JSON object that logs kept before packing
        stored = getattr(self.codec, "unpack", json.loads)(payload)
        event = self.codec.decode(stored)
        return Recorded(version=version, ts=ts, event=event, raw={**stored, "ts": ts, "version": version})


# Snapshots and the game index are derived data: they can be deleted and rebuilt from the logs.
class GameIndex(ABC):
    """The games newest first, filtered by status and variant: a projection of the logs.

    It holds, per game, what the appends' ``meta`` said last (status, variant, created) and the
    version and time of the last append. Only the event store writes it, with each append; it
    can be rebuilt from what the store recorded.
    """

    @abstractmethod
    def list_games(
        self,
        status: str | None = None,
        variant: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
        hidden: Callable[[list[str]], set[str]] | None = None,
    ) -> tuple[list[dict], str | None]:
        """Game summaries newest first and the cursor of the next page (None on the last).

        A summary is ``{"game_id", "variant", "status", "created", "updated", "version",
        "summary"}``; ``summary`` is the latest the appends gave (None if none did).
        ``hidden`` names the page's game ids to leave out.
        The page then holds fewer, and the cursor still points past all ``limit``.
        """
        # hidden is asked of the page's game ids before their summaries are read

    @staticmethod
    def cursor_after(entry: dict) -> str:
        """The cursor of the position just after a summary ``list_games`` gave (its created and
        game id are its place in the index): a reader that keeps only part of a page resumes there."""
        return encode_cursor(index_member(entry["created"], entry["game_id"]))


class SnapshotStore(ABC):
    """States of a game saved at some versions, to shorten replays (the log alone is the truth).

    A store keeps the newest few of a game (``keep``): older ones only cost memory, since a
    reader of an older version replays from the log's start at worst.
    """

    keep: int

    @abstractmethod
    def save(self, game_id: str, version: int, state: dict, keep: int | None = None) -> None:
        """Keep a JSON-able state as it was after event ``version`` (1..the game's version), dropping
        all but the newest ``keep`` snapshots of the game (the store's own ``keep`` by default)."""

    @abstractmethod
    def latest(self, game_id: str, upto: int | None = None) -> tuple[int, dict] | None:
        """(version, state) of the newest snapshot with version <= upto, or None."""

    @abstractmethod
    def delete(self, game_id: str) -> None:
        """Forget every snapshot of the game (the events stay)."""
