"""How every EventStore (and GameRepository over it) behaves: abstract test classes, each
subclassed once per backend.

A subclass provides the fixture ``make_store`` -> ``make(codec=None, clock=None)``, returning
a fresh, empty store (a test codec by default). The snapshot store and the game index that go
with a store (``snapshots_of(store)``, ``store.index``) are tested here too. The test codec below stands in for the
engine's event registry; a run with the real engine events lives in the backends' modules.
"""

from __future__ import annotations

import hashlib
import threading
import time
import weakref
from dataclasses import dataclass

import pytest

from service.store import ConcurrencyError, IdempotencyConflict, InvalidCursor
from service.store.base import scoped_idempotency_key


class UnknownTestEventType(Exception):
    """The test codec has no such event type."""


@dataclass(frozen=True)
class TestEvent:
    __test__ = False  # a domain object, not a test class

    name: str
    n: int


@dataclass(frozen=True)
class OtherEvent:
    text: str


class TestCodec:
    """encode/decode for TestEvent (and OtherEvent unless narrow), like the engine's registry."""

    __test__ = False

    def __init__(self, narrow: bool = False):
        self.types = {"test_event": TestEvent} if narrow else {"test_event": TestEvent, "other_event": OtherEvent}

    def encode(self, event) -> dict:
        for name, cls in self.types.items():
            if type(event) is cls:
                return {"type": name, "v": 1, "data": dict(event.__dict__)}
        raise UnknownTestEventType(f"cannot encode {event!r}")

    def decode(self, raw: dict):
        cls = self.types.get(raw["type"])
        if cls is None or raw["v"] != 1:
            raise UnknownTestEventType(f"unknown event type {raw['type']!r} v{raw['v']}")
        return cls(**raw["data"])


class StepClock:
    """A clock that moves 1 ms per reading, from a fixed start."""

    def __init__(self, start: int = 1_700_000_000_000):
        self.now = start

    def __call__(self) -> int:
        self.now += 1
        return self.now


def events(*names: str) -> list[TestEvent]:
    return [TestEvent(name, i) for i, name in enumerate(names)]


_SNAPSHOTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def snapshots_of(store):
    """The snapshot store that goes with an event store (one per store, made on first use)."""
    if store not in _SNAPSHOTS:
        from service.store.memory import InMemoryEventStore, InMemorySnapshotStore

        if isinstance(store, InMemoryEventStore):
            _SNAPSHOTS[store] = InMemorySnapshotStore(store)
        else:
            from service.store.redis_snapshots import RedisSnapshotStore

            _SNAPSHOTS[store] = RedisSnapshotStore(store.redis, store.prefix)
    return _SNAPSHOTS[store]


class EventStoreBehaviour:
    """Behaviour every EventStore must show."""

    @pytest.fixture
    def make_store(self):
        raise NotImplementedError("a backend's subclass provides make_store")

    @pytest.fixture
    def store(self, make_store):
        return make_store()

    @pytest.fixture
    def snapshots(self, store):
        return snapshots_of(store)

    # -- appending and loading -----------------------------------------------------------------

    def test_a_game_never_appended_to_has_version_zero_and_does_not_exist(self, store):
        assert store.version("g-none") == 0
        assert store.exists("g-none") is False
        assert store.load("g-none") == []

    def test_append_returns_the_new_version_and_load_returns_the_events_in_order(self, store):
        assert store.append("g1", events("a", "b"), 0) == 2
        assert store.append("g1", events("c"), 2) == 3
        recorded = store.load("g1")
        assert [r.version for r in recorded] == [1, 2, 3]
        assert [r.event for r in recorded] == [TestEvent("a", 0), TestEvent("b", 1), TestEvent("c", 0)]
        assert store.version("g1") == 3 and store.exists("g1")

    def test_the_store_stamps_each_event_with_the_clock_and_keeps_the_encoded_form(self, make_store):
        clock = StepClock(1_000)
        store = make_store(clock=clock)
        store.append("g1", events("a", "b"), 0)  # the clock reads 1_001 for this append
        store.append("g1", events("c"), 2)  # and 1_002 for this one
        recorded = store.load("g1")
        assert [r.ts for r in recorded] == [1_001, 1_001, 1_002]
        assert recorded[1].raw == {"type": "test_event", "v": 1, "data": {"name": "b", "n": 1}, "ts": 1_001, "version": 2}

    def test_load_after_and_upto_select_a_range_of_versions(self, store):
        store.append("g1", events("a", "b", "c", "d", "e"), 0)
        assert [r.version for r in store.load("g1", after=2)] == [3, 4, 5]
        assert [r.version for r in store.load("g1", after=1, upto=3)] == [2, 3]
        assert [r.version for r in store.load("g1", upto=2)] == [1, 2]
        assert [r.version for r in store.load("g1", after=4, upto=99)] == [5]
        assert store.load("g1", after=5) == []
        assert store.load("g1", after=3, upto=3) == []

    def test_games_do_not_share_logs_or_versions(self, store):
        store.append("g1", events("a", "b"), 0)
        store.append("g2", events("x"), 0)
        assert [r.event.name for r in store.load("g2")] == ["x"]
        assert (store.version("g1"), store.version("g2")) == (2, 1)

    def test_an_empty_append_is_rejected(self, store):
        with pytest.raises(ValueError):
            store.append("g1", [], 0)
        assert store.version("g1") == 0

    @pytest.mark.parametrize("game_id", ["", "a b", "x{y}", "a" * 129, None])
    def test_game_ids_that_cannot_name_a_key_are_rejected(self, store, game_id):
        with pytest.raises(ValueError):
            store.append(game_id, events("a"), 0)

    # -- optimistic concurrency ----------------------------------------------------------------

    def test_a_stale_expected_version_raises_a_concurrency_error_and_appends_nothing(self, store):
        store.append("g1", events("a", "b"), 0)
        with pytest.raises(ConcurrencyError) as caught:
            store.append("g1", events("c"), 1)
        assert (caught.value.expected, caught.value.actual) == (1, 2)
        assert store.version("g1") == 2
        assert [r.event.name for r in store.load("g1")] == ["a", "b"]

    def test_creating_a_game_that_exists_already_conflicts(self, store):
        store.append("g1", events("a"), 0)
        with pytest.raises(ConcurrencyError) as caught:
            store.append("g1", events("b"), 0)
        assert (caught.value.expected, caught.value.actual) == (0, 1)

    def test_an_expected_version_ahead_of_the_game_conflicts(self, store):
        with pytest.raises(ConcurrencyError) as caught:
            store.append("g1", events("a"), 3)
        assert (caught.value.expected, caught.value.actual) == (3, 0)
        assert store.exists("g1") is False

    def test_concurrent_writers_never_leave_a_gap_or_a_duplicate_version(self, store):
        thread_count, attempts_per_thread = 8, 200
        successes: list[tuple[int, int, int]] = []  # (thread, attempt, version)
        conflicts = [0] * thread_count
        errors: list[BaseException] = []
        lock = threading.Lock()

        start = threading.Barrier(thread_count)

        def writer(thread: int) -> None:
            try:
                seen = 0  # every writer saw the empty game, so all but one conflict at first
                start.wait()
                for attempt in range(attempts_per_thread):
                    try:
                        seen = store.append("g1", [TestEvent(f"t{thread}", attempt)], seen)
                        with lock:
                            successes.append((thread, attempt, seen))
                    except ConcurrencyError as exc:
                        conflicts[thread] += 1
                        seen = exc.actual
            except BaseException as exc:  # surfaced by the assertion below
                errors.append(exc)

        writers = [threading.Thread(target=writer, args=(thread,)) for thread in range(thread_count)]
        for running in writers:
            running.start()
        for running in writers:
            running.join()

        assert errors == []
        assert len(successes) + sum(conflicts) == thread_count * attempts_per_thread
        assert sum(conflicts) >= thread_count - 1
        log = store.load("g1")
        assert [r.version for r in log] == list(range(1, len(successes) + 1))  # no gap, no duplicate
        assert store.version("g1") == len(successes)
        by_version = {r.version: r.event for r in log}
        for thread, attempt, version in successes:
            assert by_version[version] == TestEvent(f"t{thread}", attempt)
        # every success is in the log exactly once, and nothing else is
        assert sorted((r.event.name, r.event.n) for r in log) == sorted(
            (f"t{thread}", attempt) for thread, attempt, _ in successes)

    # -- idempotency ---------------------------------------------------------------------------

    def test_an_append_retried_with_its_key_appends_once_and_answers_the_same(self, store):
        store.append("g1", events("a"), 0)
        answers = [store.append("g1", events("b", "c"), 1, "key-1") for _ in range(5)]
        assert answers == [3] * 5
        assert [r.event.name for r in store.load("g1")] == ["a", "b", "c"]

    def test_an_append_says_whether_it_replayed_an_earlier_one_with_its_key(self, store):
        first = store.append_outcome("g1", events("a"), 0, "key-1")
        again = store.append_outcome("g1", events("a"), 0, "key-1")
        plain = store.append_outcome("g1", events("b"), 1)
        assert [first, again, plain] == [(1, False), (1, True), (2, False)]

    def test_a_retry_answers_the_first_result_even_after_the_game_moved_on(self, store):
        assert store.append("g1", events("a"), 0, "key-1") == 1
        store.append("g1", events("b"), 1)
        # expected_version 0 is stale by now, but the key is checked first
        assert store.append("g1", events("a"), 0, "key-1") == 1
        assert store.version("g1") == 2

    def test_a_key_reused_for_other_events_raises_an_idempotency_conflict(self, store):
        store.append("g1", events("a"), 0, "key-1")
        with pytest.raises(IdempotencyConflict) as caught:
            store.append("g1", events("b"), 1, "key-1")
        assert caught.value.key == "key-1" and caught.value.version == 1
        assert store.version("g1") == 1

    def test_the_default_fingerprint_is_the_sha256_of_the_canonical_json_of_the_events(self, store):
        store.append("g1", [TestEvent("a", 7)], 0, "key-1")
        canonical = '[{"data":{"n":7,"name":"a"},"type":"test_event","v":1}]'
        assert store.idempotent_result("g1", "key-1") == (hashlib.sha256(canonical.encode()).hexdigest(), 1)
        assert store.idempotent_result("g1", "never-used") is None
        assert store.idempotent_result("g-none", "key-1") is None

    def test_an_explicit_fingerprint_decides_what_counts_as_the_same_request(self, store):
        assert store.append("g1", events("a"), 0, "key-1", fingerprint="request-1") == 1
        # other events (say, a decision re-made on a newer state) but the same request: a replay
        assert store.append("g1", events("zzz"), 1, "key-1", fingerprint="request-1") == 1
        with pytest.raises(IdempotencyConflict):
            store.append("g1", events("a"), 0, "key-1", fingerprint="request-2")
        assert store.idempotent_result("g1", "key-1") == ("request-1", 1)
        assert [r.event.name for r in store.load("g1")] == ["a"]

    def test_idempotency_keys_belong_to_one_game(self, store):
        assert store.append("g1", events("a"), 0, "key-1") == 1
        assert store.append("g2", events("b", "c"), 0, "key-1") == 2
        assert store.version("g1") == 1 and store.version("g2") == 2

    def test_the_same_key_in_two_scopes_is_two_records(self, store):
        # the API records each seat's keys under the seat: two seats may choose the same key
        mine, theirs = scoped_idempotency_key("seat:0", "key-1"), scoped_idempotency_key("seat:1", "key-1")
        assert mine != theirs
        assert store.append("g1", events("a"), 0, mine, fingerprint="seat-0-request") == 1
        # the other scope's request with the same key is neither a replay nor a conflict
        assert store.append("g1", events("b"), 1, theirs, fingerprint="seat-1-request") == 2
        assert store.idempotent_result("g1", mine) == ("seat-0-request", 1)
        assert store.idempotent_result("g1", theirs) == ("seat-1-request", 2)
        assert store.idempotent_result("g1", "key-1") is None
        # within its scope a key still answers its first request, and still refuses another one
        assert store.append("g1", events("a"), 0, mine, fingerprint="seat-0-request") == 1
        with pytest.raises(IdempotencyConflict):
            store.append("g1", events("c"), 2, theirs, fingerprint="seat-1-other")
        assert store.version("g1") == 2

    @pytest.mark.parametrize("scope", ["", "seat 0", "seat\t0", None, 0])
    def test_a_scope_that_could_make_two_scoped_keys_one_is_refused(self, scope):
        with pytest.raises(ValueError):
            scoped_idempotency_key(scope, "key-1")

    def test_a_failed_append_does_not_record_its_key(self, store):
        store.append("g1", events("a"), 0)
        with pytest.raises(ConcurrencyError):
            store.append("g1", events("b"), 0, "key-1")
        assert store.idempotent_result("g1", "key-1") is None
        assert store.append("g1", events("b"), 1, "key-1") == 2

    # -- the codec -----------------------------------------------------------------------------

    def test_an_event_the_codec_does_not_know_is_refused_before_anything_is_written(self, store):
        with pytest.raises(UnknownTestEventType):
            store.append("g1", [TestEvent("a", 0), object()], 0)
        assert store.version("g1") == 0

    def test_a_stored_event_of_a_type_the_codec_does_not_know_fails_loudly_on_load(self, store):
        store.append("g1", [TestEvent("a", 0), OtherEvent("hello")], 0)
        store.codec = TestCodec(narrow=True)
        with pytest.raises(UnknownTestEventType):
            store.load("g1")
        assert [r.event for r in store.load("g1", upto=1)] == [TestEvent("a", 0)]

    # -- snapshots -----------------------------------------------------------------------------

    def test_latest_snapshot_is_the_newest_at_or_before_upto(self, store, snapshots):
        store.append("g1", events(*"abcdef"), 0)
        assert snapshots.latest("g1") is None
        snapshots.save("g1", 2, {"seen": ["a", "b"]})
        snapshots.save("g1", 5, {"seen": ["a", "b", "c", "d", "e"]})
        assert snapshots.latest("g1") == (5, {"seen": ["a", "b", "c", "d", "e"]})
        assert snapshots.latest("g1", upto=4) == (2, {"seen": ["a", "b"]})
        assert snapshots.latest("g1", upto=5)[0] == 5
        assert snapshots.latest("g1", upto=1) is None

    def test_a_snapshot_saved_again_at_the_same_version_replaces_the_first(self, store, snapshots):
        store.append("g1", events("a", "b"), 0)
        snapshots.save("g1", 2, {"try": 1})
        snapshots.save("g1", 2, {"try": 2})
        assert snapshots.latest("g1") == (2, {"try": 2})

    @pytest.mark.parametrize("version", [0, 3])
    def test_a_snapshot_outside_the_log_is_refused(self, store, snapshots, version):
        store.append("g1", events("a", "b"), 0)
        with pytest.raises(ValueError):
            snapshots.save("g1", version, {})
        assert snapshots.latest("g1") is None

    def test_a_game_keeps_its_newest_snapshots_only(self, store, snapshots):
        store.append("g1", events(*"abcdef"), 0)
        for version in (1, 3, 2, 5, 4):
            snapshots.save("g1", version, {"at": version})
        newest = sorted((1, 3, 2, 5, 4))[-snapshots.keep:]
        kept = []
        upto = 6
        while (found := snapshots.latest("g1", upto)) is not None:
            kept.append(found[0])
            upto = found[0] - 1
        assert sorted(kept) == newest and snapshots.latest("g1") == (5, {"at": 5})

    def test_a_snapshot_saved_with_keep_one_is_the_only_one_left(self, store, snapshots):
        store.append("g1", events(*"abcdef"), 0)
        for version in (2, 4, 6):
            snapshots.save("g1", version, {"at": version})
        snapshots.save("g1", 5, {"at": 5}, keep=1)  # keeps the newest by version: 6
        assert snapshots.latest("g1") == (6, {"at": 6}) and snapshots.latest("g1", upto=5) is None
        snapshots.save("g1", 6, {"final": True}, keep=1)
        assert snapshots.latest("g1") == (6, {"final": True}) and snapshots.latest("g1", upto=5) is None
        with pytest.raises(ValueError):
            snapshots.save("g1", 6, {}, keep=0)

    def test_deleting_snapshots_keeps_every_event(self, store, snapshots):
        store.append("g1", events("a", "b", "c"), 0)
        snapshots.save("g1", 3, {"x": 1})
        snapshots.delete("g1")
        assert snapshots.latest("g1") is None
        assert [r.version for r in store.load("g1")] == [1, 2, 3]

    # -- the game index ------------------------------------------------------------------------

    def _three_games(self, store):
        store.append("g-old", events("a"), 0, meta={"status": "over", "variant": "gin-rami"})
        store.append("g-mid", events("a"), 0, meta={"status": "playing", "variant": "three-hand"})
        store.append("g-new", events("a", "b"), 0, meta={"status": "playing", "variant": "gin-rami"})

    def test_list_games_lists_newest_first_with_a_summary_of_each(self, make_store):
        store = make_store(clock=StepClock(5_000))
        self._three_games(store)  # created at 5_001, 5_002, 5_003
        store.append("g-old", events("b"), 1)  # at 5_004: updated, still the oldest by creation
        games, cursor = store.index.list_games()
        assert cursor is None
        assert games == [
            {"game_id": "g-new", "variant": "gin-rami", "status": "playing", "created": 5_003, "updated": 5_003,
             "version": 2, "summary": None},
            {"game_id": "g-mid", "variant": "three-hand", "status": "playing", "created": 5_002, "updated": 5_002,
             "version": 1, "summary": None},
            {"game_id": "g-old", "variant": "gin-rami", "status": "over", "created": 5_001, "updated": 5_004,
             "version": 2, "summary": None},
        ]

    def test_the_index_keeps_the_latest_summary_an_append_gave(self, store):
        first = {"players": [{"name": "ann"}, None], "scores": [0, 0], "note": "naïve ♠"}
        store.append("g1", events("a"), 0, meta={"status": "waiting", "summary": first})
        first["scores"] = [9, 9]  # the index holds what it was given, not the caller's object
        assert store.index.list_games()[0][0]["summary"] == {
            "players": [{"name": "ann"}, None], "scores": [0, 0], "note": "naïve ♠"}
        store.append("g1", events("b"), 1)  # no summary: the last one stays
        assert store.index.list_games()[0][0]["summary"]["scores"] == [0, 0]
        store.append("g1", events("c"), 2, meta={"status": "playing", "summary": {"scores": [3, 1]}})
        [game], _ = store.index.list_games(status="playing")
        assert (game["summary"], game["version"]) == ({"scores": [3, 1]}, 3)

    def test_list_games_filters_by_status_and_variant(self, make_store):
        store = make_store(clock=StepClock())
        self._three_games(store)
        ids = lambda **filters: [g["game_id"] for g in store.index.list_games(**filters)[0]]  # noqa: E731
        assert ids(status="playing") == ["g-new", "g-mid"]
        assert ids(variant="gin-rami") == ["g-new", "g-old"]
        assert ids(status="playing", variant="gin-rami") == ["g-new"]
        assert ids(status="waiting") == []

    def test_a_new_status_moves_a_game_between_filters(self, make_store):
        store = make_store(clock=StepClock())
        self._three_games(store)
        store.append("g-mid", events("b"), 1, meta={"status": "over"})
        over = [g["game_id"] for g in store.index.list_games(status="over")[0]]
        assert over == ["g-mid", "g-old"]
        assert [g["game_id"] for g in store.index.list_games(status="playing")[0]] == ["g-new"]
        assert [g["game_id"] for g in store.index.list_games(status="over", variant="three-hand")[0]] == ["g-mid"]

    def test_an_append_without_meta_keeps_status_and_variant(self, store):
        store.append("g1", events("a"), 0, meta={"status": "waiting", "variant": "gin-rami"})
        store.append("g1", events("b"), 1)
        [game], _ = store.index.list_games(status="waiting")
        assert (game["game_id"], game["variant"], game["version"]) == ("g1", "gin-rami", 2)

    def test_list_games_pages_through_every_game_once_with_an_opaque_cursor(self, make_store):
        store = make_store(clock=StepClock())
        created_order = [f"g{i:02d}" for i in range(7)]
        for game_id in created_order:
            store.append(game_id, events("a"), 0, meta={"status": "waiting"})
        seen, cursor, pages = [], None, 0
        while True:
            page, cursor = store.index.list_games(status="waiting", cursor=cursor, limit=3)
            seen += [g["game_id"] for g in page]
            pages += 1
            if cursor is None:
                break
            assert isinstance(cursor, str)
        assert pages == 3  # 3 + 3 + 1
        assert seen == list(reversed(created_order))

    def test_a_last_full_page_has_no_next_cursor(self, store):
        for game_id in ("g1", "g2"):
            store.append(game_id, events("a"), 0)
        page, cursor = store.index.list_games(limit=2)
        assert len(page) == 2 and cursor is None

    def test_games_created_in_the_same_millisecond_are_ordered_by_id(self, store):
        for game_id in ("g-b", "g-c", "g-a"):
            store.append(game_id, events("a"), 0, meta={"created": 42})
        first, cursor = store.index.list_games(limit=2)
        rest, end = store.index.list_games(cursor=cursor, limit=2)
        assert [g["game_id"] for g in first + rest] == ["g-a", "g-b", "g-c"]
        assert end is None
        assert {g["created"] for g in first + rest} == {42}

    def test_created_is_fixed_by_the_first_append(self, make_store):
        store = make_store(clock=StepClock(100))
        store.append("g1", events("a"), 0)
        store.append("g1", events("b"), 1, meta={"created": 5})
        [game], _ = store.index.list_games()
        assert game["created"] == 101

    @pytest.mark.parametrize("cursor", ["not a cursor at all!", "12345678901234", "", "12345678901234x:game", "١٢٣٤٥٦٧٨٩٠١٢٣٤٥game"])
    def test_a_cursor_the_store_did_not_hand_out_is_rejected(self, store, cursor):
        with pytest.raises(InvalidCursor):
            store.index.list_games(cursor=cursor)

    @pytest.mark.parametrize("kwargs", [{"limit": 0}, {"limit": 501}, {"status": "a:b"}, {"variant": "x y"}])
    def test_list_games_rejects_bad_arguments(self, store, kwargs):
        with pytest.raises(ValueError):
            store.index.list_games(**kwargs)

    def test_meta_that_cannot_name_an_index_key_is_rejected(self, store):
        with pytest.raises(ValueError):
            store.append("g1", events("a"), 0, meta={"status": "a:b"})
        with pytest.raises(ValueError):
            store.append("g1", events("a"), 0, meta={"colour": "red"})
        with pytest.raises(ValueError):
            store.append("g1", events("a"), 0, meta={"summary": ["not", "an", "object"]})
        assert store.version("g1") == 0

    # -- waiting for events --------------------------------------------------------------------

    def test_wait_for_events_returns_at_once_what_is_already_there(self, store):
        store.append("g1", events("a", "b", "c"), 0)
        assert [r.version for r in store.wait_for_events("g1", 1, timeout_s=30)] == [2, 3]

    def test_wait_for_events_returns_nothing_when_nothing_comes(self, store):
        store.append("g1", events("a"), 0)
        assert store.wait_for_events("g1", 1, timeout_s=0.2) == []
        assert store.wait_for_events("g-none", 0, timeout_s=0) == []

    def test_wait_for_events_wakes_up_when_another_thread_appends(self, store):
        store.append("g1", events("a"), 0)
        writer = threading.Timer(0.2, lambda: store.append("g1", events("b"), 1))
        writer.start()
        try:
            # a 30 s wait that returns the event (not []) was woken by the append
            got = store.wait_for_events("g1", 1, timeout_s=30)
        finally:
            writer.join()
        assert [(r.version, r.event.name) for r in got] == [(2, "b")]

    def test_wait_for_events_sees_the_first_event_of_a_new_game(self, store):
        results = []
        waiter = threading.Thread(target=lambda: results.append(store.wait_for_events("g1", 0, timeout_s=30)))
        waiter.start()
        time.sleep(0.1)
        store.append("g1", events("a"), 0)
        waiter.join()
        assert [r.version for r in results[0]] == [1]

    def test_text_beyond_ascii_survives_the_round_trip(self, store):
        store.append("g1", [TestEvent("é♠", 1)], 0)
        [recorded] = store.load("g1")
        assert recorded.event == TestEvent("é♠", 1)
        assert recorded.raw["data"] == {"name": "é♠", "n": 1}


# -- with the engine's events --------------------------------------------------------------------


def played_game(variant: str = "gin-rami", seed: int = 7, max_moves: int = 3000) -> list[list]:
    """The event batches of a whole game (one per command), moves chosen by a seeded RNG."""
    import random

    from service.rules import game
    from service.rules.commands import Knock

    rng = random.Random(seed)
    seats = 2 if variant == "gin-rami" else 3
    batches = [game.start(game.GameSpec(variant, [{"name": f"p{i}"} for i in range(seats)], seed=f"s{seed}".encode()))]
    state = game.replay(batches[0])
    for _ in range(max_moves):
        if state.status == "over":
            break
        seat = state.to_act[0]
        moves = game.legal_moves(state, seat)
        knocks = [m for m in moves if isinstance(m, Knock)]
        # knock mostly when allowed, so that hands end by knocks as well as by an empty stock
        move = rng.choice(knocks) if knocks and rng.random() < 0.9 else rng.choice(moves)
        state, new = game.apply(state, seat, move)
        batches.append(new)
    return batches


def append_all(store, batches, game_id="g1") -> int:
    """Append every batch in turn (no repository); the game's version after the last."""
    version = 0
    for batch in batches:
        version = store.append(game_id, batch, version)
    return version


def states_after_every_version(batches) -> dict:
    """{version: the state after it}, by evolving the events one by one (no store, no cache)."""
    from service.rules import game

    states, state = {}, None
    for event in (e for batch in batches for e in batch):
        state = game.evolve(state, event)
        states[state.version] = state
    return states


class EngineEventsBehaviour:
    """The store with the engine's codec and events (``make_store`` as for EventStoreBehaviour)."""

    @pytest.fixture(scope="class")
    @classmethod
    def batches(cls):
        return played_game("three-hand", seed=10)  # a game of 784 events that ends

    @pytest.mark.parametrize("codec_module", ["events", "codec"])  # the wire form kept as is, and packed
    def test_a_whole_game_comes_back_as_it_was_appended(self, make_store, batches, codec_module):
        import importlib

        from service.rules import game

        codec = importlib.import_module(f"service.rules.{codec_module}")
        store = make_store(codec=codec)
        version = 0
        for batch in batches:
            version = store.append("g1", batch, version, meta={"status": "playing", "variant": "three-hand"})
        appended = [e for batch in batches for e in batch]
        recorded = store.load("g1")
        assert [r.event for r in recorded] == appended
        assert [r.raw for r in recorded] == [{**codec.encode(e), "ts": r.ts, "version": r.version} for e, r in zip(appended, recorded)]
        assert game.replay(r.event for r in recorded) == game.replay(appended)
        assert game.replay(appended).status == "over"  # the game was played to its end

    def test_a_log_begun_before_packing_reads_the_same_once_packed_events_follow(self, make_store, batches):
        from service.rules import codec, events, game

        store = make_store(codec=events)  # a server of before the packed form
        half = len(batches) // 2
        version = 0
        for i, batch in enumerate(batches):
            if i == half:
                store.codec = codec  # the same game, carried on by a server that packs
            version = store.append("g1", batch, version)
        appended = [e for batch in batches for e in batch]
        recorded = store.load("g1")
        assert [r.event for r in recorded] == appended
        assert [r.raw for r in recorded] == [{**events.encode(e), "ts": r.ts, "version": r.version}
                                             for e, r in zip(appended, recorded)]
        assert game.replay(r.event for r in recorded) == game.replay(appended)

    def test_an_archived_game_reads_every_event_as_it_was_and_its_log_never_grows(self, make_store, batches):
        from service.rules import codec
        from service.store.errors import GameNotArchivable, StoreError

        store = make_store(codec=codec)
        assert store.archive("g1") is False  # no such game: nothing to archive
        version = store.append("g1", batches[0], 0)
        with pytest.raises(GameNotArchivable) as refused:
            store.archive("g1")  # a game in play: refused, nothing changed
        assert refused.value.code == "game_not_over" and not store.is_archived("g1")
        for batch in batches[1:]:
            version = store.append("g1", batch, version)
        before = store.load("g1")
        ranges = {(a, u): store.load("g1", after=a, upto=u) for a, u in ((0, 1), (5, 40), (100, None), (version, None))}
        tails = {k: store.tail("g1", k) for k in (1, 77, version)}

        assert store.archive("g1") is True and store.is_archived("g1")
        assert store.archive("g1") is False  # once only: the second finds no log left to archive
        assert store.version("g1") == version
        after = store.load("g1")
        assert [(r.version, r.ts, r.raw) for r in after] == [(r.version, r.ts, r.raw) for r in before]
        assert [r.event for r in after] == [r.event for r in before]
        for (a, u), records in ranges.items():
            assert [r.raw for r in store.load("g1", after=a, upto=u)] == [r.raw for r in records]
        for k, records in tails.items():
            assert [r.raw for r in store.tail("g1", k)] == [r.raw for r in records]
        assert store.tail("g1", version + 1) is None
        assert store.wait_for_events("g1", version - 3, 0.05) == after[-3:]
        with pytest.raises(StoreError):
            store.append("g1", batches[-1], version)  # an archived log never grows

    def test_a_log_of_events_kept_as_json_objects_is_archived_and_reads_the_same(self, make_store, batches):
        from service.rules import codec, events

        store = make_store(codec=events)  # a server of before the packed form ...
        version = 0
        for i, batch in enumerate(batches):
            if i == len(batches) // 2:
                store.codec = codec  # ... the game carried on and archived by one that packs
            version = store.append("g1", batch, version)
        before = store.load("g1")
        assert store.archive("g1") is True
        assert [(r.version, r.ts, r.raw) for r in store.load("g1")] == [(r.version, r.ts, r.raw) for r in before]

    def test_the_engine_codec_refuses_an_event_type_it_does_not_know(self, make_store):
        from service.rules.events import UnknownEventType
        from service.rules import events as codec

        store = make_store(codec=TestCodec())
        store.append("g1", [TestEvent("a", 1)], 0)
        store.codec = codec
        with pytest.raises(UnknownEventType):
            store.load("g1")


class GameRepositoryBehaviour:
    """GameRepository over a backend (``make_store`` as for EventStoreBehaviour)."""

    @pytest.fixture(scope="class")
    @classmethod
    def batches(cls):
        return played_game("gin-rami", seed=21)  # a game of 637 events that ends

    @pytest.fixture
    def engine_store(self, make_store):
        from service.rules import events as codec

        return make_store(codec=codec)

    def test_save_returns_the_evolved_state_and_snapshots_when_a_multiple_is_crossed(self, engine_store, batches):
        from service.store.repository import GameRepository

        repo = GameRepository(engine_store, snapshots_of(engine_store), snapshot_every=10)
        expected = states_after_every_version(batches)
        state, crossed = None, []
        for batch in batches[:60]:
            before = state.version if state else 0
            saved = repo.save("g1", state, batch)
            assert saved.state == expected[saved.version]
            if before // 10 != saved.version // 10:
                crossed.append(saved.version)
            state = saved.state
        assert crossed  # 60 commands cross several multiples of 10
        snapshots = []
        upto = state.version
        while (found := snapshots_of(engine_store).latest("g1", upto)) is not None:
            snapshots.append(found[0])
            upto = found[0] - 1
        assert sorted(snapshots) == crossed[-snapshots_of(engine_store).keep:]  # the newest only

    def test_load_state_at_every_version_equals_the_replay_with_or_without_snapshots(self, engine_store, batches):
        from service.store.repository import GameRepository

        repo = GameRepository(engine_store, snapshots_of(engine_store), snapshot_every=25)
        state = None
        for batch in batches[:-1]:
            state = repo.save("g1", state, batch).state
        expected = states_after_every_version(batches)
        assert state.status != "over" and snapshots_of(engine_store).latest("g1") is not None
        versions = sorted(set(range(1, state.version + 1, 13)) | {state.version})
        with_snapshots = {v: repo.load_state("g1", upto=v) for v in versions}
        assert with_snapshots == {v: expected[v] for v in versions}

        # the last move ends the game: a finished game keeps its final state only, and reads the same
        state = repo.save("g1", state, batches[-1]).state
        assert state.status == "over"
        assert snapshots_of(engine_store).latest("g1")[0] == state.version
        assert snapshots_of(engine_store).latest("g1", upto=state.version - 1) is None
        cold = GameRepository(engine_store, snapshots_of(engine_store), snapshot_every=25)  # an empty state cache
        assert cold.load_state("g1") == expected[state.version]
        assert cold.load_state("g1", upto=versions[-1]) == expected[versions[-1]]
        assert snapshots_of(engine_store).latest("g1", upto=state.version - 1) is None, "a read left a snapshot"

        plain = GameRepository(engine_store, snapshots_of(engine_store), snapshot_every=10**9)  # replays, writes no snapshot
        sample = versions[::8] + [versions[-1]]  # each of these replays the log from its start
        assert {v: plain.load_state("g1", upto=v) for v in sample} == {v: with_snapshots[v] for v in sample}

    def test_load_state_leaves_a_snapshot_after_a_long_replay(self, engine_store, batches):
        from service.store.repository import GameRepository

        version = append_all(engine_store, batches[:40])  # appended without the repository
        repo = GameRepository(engine_store, snapshots_of(engine_store), snapshot_every=20)
        assert snapshots_of(engine_store).latest("g1") is None
        state = repo.load_state("g1")
        assert snapshots_of(engine_store).latest("g1")[0] == version == state.version
        assert repo.load_state("g1") == state

    def test_an_unreadable_snapshot_is_ignored(self, engine_store, batches):
        from service.store.repository import GameRepository

        append_all(engine_store, batches[:30])
        snapshots_of(engine_store).save("g1", 12, {"not": "a state"})
        repo = GameRepository(engine_store, snapshots_of(engine_store), snapshot_every=10**9)
        assert repo.load_state("g1", upto=20) == states_after_every_version(batches[:30])[20]

    def test_a_snapshot_that_claims_another_version_is_ignored(self, engine_store, batches):
        from service.rules import game
        from service.store.repository import GameRepository

        append_all(engine_store, batches[:30])
        states = states_after_every_version(batches[:30])
        snapshots_of(engine_store).save("g1", 12, game.state_to_dict(states[5]))
        repo = GameRepository(engine_store, snapshots_of(engine_store), snapshot_every=10**9)
        assert repo.load_state("g1", upto=20) == states[20]

    def test_a_retried_save_answers_the_first_result(self, engine_store, batches):
        from service.store.repository import GameRepository

        repo = GameRepository(engine_store, snapshots_of(engine_store), snapshot_every=50)
        first = repo.save("g1", None, batches[0], "create")
        second = repo.save("g1", first.state, batches[1], "move-1", fingerprint="request-1")
        third = repo.save("g1", second.state, batches[2], "move-2")
        # a retry decided again on the state the first attempt saw
        again = repo.save("g1", first.state, batches[1], "move-1", fingerprint="request-1")
        assert again == second._replace(replayed=True)
        # a retry decided on a later state (its events differ): still the first attempt's answer
        later = repo.save("g1", third.state, batches[3], "move-1", fingerprint="request-1")
        assert later == second._replace(replayed=True)
        assert engine_store.version("g1") == third.version

    def test_a_save_on_a_stale_state_raises_a_concurrency_error(self, engine_store, batches):
        from service.store.repository import GameRepository

        repo = GameRepository(engine_store, snapshots_of(engine_store))
        first = repo.save("g1", None, batches[0])
        repo.save("g1", first.state, batches[1])
        with pytest.raises(ConcurrencyError):
            repo.save("g1", first.state, batches[1])

    def test_save_keeps_status_and_variant_for_the_game_list(self, engine_store, batches):
        from service.store.repository import GameRepository

        repo = GameRepository(engine_store, snapshots_of(engine_store))
        state = None
        for batch in batches:
            state = repo.save("g1", state, batch).state
        [summary], _ = engine_store.index.list_games(status="over", variant="gin-rami")
        assert (summary["game_id"], summary["version"]) == ("g1", state.version)

    def test_loading_a_game_that_does_not_exist_raises_unknown_game(self, engine_store):
        from service.store import UnknownGame
        from service.store.repository import GameRepository

        with pytest.raises(UnknownGame):
            GameRepository(engine_store, snapshots_of(engine_store)).load_state("g-none")
