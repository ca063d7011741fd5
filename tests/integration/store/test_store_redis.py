"""The EventStore behaviour suite on Redis, and what only the Redis layout promises."""

from __future__ import annotations

import json
import threading

import pytest
import redis
from redis.crc import key_slot
from support.store_behaviour import (
    EngineEventsBehaviour,
    EventStoreBehaviour,
    GameRepositoryBehaviour,
    StepClock,
    TestCodec,
    TestEvent,
    events,
    snapshots_of,
)

from service.connections import redis_client
from service.store import ConcurrencyError
from service.store.redis_store import RedisEventStore


class TestRedisEventStore(EventStoreBehaviour):
    """The behaviour with the index updated inside the append script (one Redis server)."""

    inline_index = True

    @pytest.fixture
    def make_store(self, redis_conn, key_prefix):
        def make(codec=None, clock=None):
            return RedisEventStore(
                redis_conn, codec or TestCodec(), prefix=key_prefix, clock=clock, inline_index=self.inline_index
            )

        return make


class TestRedisEventStoreIndexedAfterAppend(TestRedisEventStore):
    """The behaviour with the index updated after the append, as on a Redis Cluster."""

    inline_index = False


class TestRedisEventStoreWithDecodedResponses(EventStoreBehaviour):
    """The behaviour through a client that decodes replies to str."""

    @pytest.fixture
    def make_store(self, redis_url, key_prefix):
        conn = redis_client(redis_url, decode_responses=True)
        yield lambda codec=None, clock=None: RedisEventStore(conn, codec or TestCodec(), prefix=key_prefix, clock=clock)
        conn.close()


class TestRedisEventStoreWithEngineEvents(EngineEventsBehaviour):
    @pytest.fixture
    def make_store(self, redis_conn, key_prefix):
        return lambda codec=None, clock=None: RedisEventStore(redis_conn, codec or TestCodec(), prefix=key_prefix, clock=clock)


class TestGameRepositoryOnRedis(GameRepositoryBehaviour):
    @pytest.fixture
    def make_store(self, redis_conn, key_prefix):
        return lambda codec=None, clock=None: RedisEventStore(redis_conn, codec or TestCodec(), prefix=key_prefix, clock=clock)


def test_a_store_built_without_a_codec_packs_the_engine_events(redis_conn, key_prefix):
    from service.rules import codec

    assert RedisEventStore(redis_conn, prefix=key_prefix).codec is codec


@pytest.fixture
def store(redis_conn, key_prefix):
    return RedisEventStore(redis_conn, TestCodec(), prefix=key_prefix, clock=StepClock())


def game_keys(redis_conn, key_prefix, game_id):
    return sorted(k.decode() for k in redis_conn.scan_iter(match=f"{key_prefix}:{{{game_id}}}:*"))


def test_every_key_of_a_game_carries_the_game_id_as_hash_tag(store, redis_conn, key_prefix):
    store.append("g1", events("a"), 0, "key-1", meta={"status": "waiting", "variant": "gin-rami"})
    snapshots_of(store).save("g1", 1, {"x": 1})
    keys = game_keys(redis_conn, key_prefix, "g1")
    assert keys == [f"{key_prefix}:{{g1}}:{kind}" for kind in ("idem", "meta", "snap", "stream")]
    assert len({key_slot(k.encode()) for k in keys}) == 1
    index_keys = [k.decode() for k in redis_conn.scan_iter(match=f"{key_prefix}:{{#index}}:*")]
    assert len(index_keys) == 5  # all, status, variant, status+variant, where
    assert len({key_slot(k.encode()) for k in index_keys}) == 1


def test_stream_entry_ids_are_the_version_and_the_time_of_the_append(store, redis_conn, key_prefix):
    store.append("g1", events("a", "b"), 0)  # the step clock's first reading: 1_700_000_000_001
    store.append("g1", events("c"), 2)  # its second
    entries = redis_conn.xrange(f"{key_prefix}:{{g1}}:stream")
    assert [entry_id for entry_id, _ in entries] == [b"1-1700000000001", b"2-1700000000001", b"3-1700000000002"]
    assert [set(fields) for _, fields in entries] == [{b"e"}] * 3
    assert json.loads(entries[2][1][b"e"]) == {"type": "test_event", "v": 1, "data": {"name": "c", "n": 0}}
    assert redis_conn.hget(f"{key_prefix}:{{g1}}:meta", "version") == b"3"
    assert [(r.version, r.ts) for r in store.load("g1")] == [(1, 1_700_000_000_001), (2, 1_700_000_000_001),
                                                             (3, 1_700_000_000_002)]


def test_a_log_written_with_the_time_in_a_field_reads_and_grows_as_before(store, redis_conn, key_prefix):
    # what a server of before kept: ids "<version>-1", the time in a field ts
    stream, meta = f"{key_prefix}:{{g1}}:stream", f"{key_prefix}:{{g1}}:meta"
    for version, name, ts in ((1, "a", 1_600_000_000_000), (2, "b", 1_600_000_000_500)):
        payload = json.dumps({"type": "test_event", "v": 1, "data": {"name": name, "n": 0}})
        redis_conn.xadd(stream, {"e": payload, "ts": ts}, id=f"{version}-1")
    redis_conn.hset(meta, mapping={"version": 2, "created": 1_600_000_000_000, "updated": 1_600_000_000_500})

    assert [(r.version, r.ts, r.event.name) for r in store.load("g1")] == [
        (1, 1_600_000_000_000, "a"), (2, 1_600_000_000_500, "b")]
    assert store.append("g1", events("c"), 2) == 3
    assert [(r.version, r.event.name) for r in store.tail("g1", 2)] == [(3, "c")]
    assert [r.version for r in store.load("g1", after=1, upto=3)] == [2, 3]
    assert [r.event.name for r in store.wait_for_events("g1", 1, timeout_s=1)] == ["b", "c"]
    assert store.tail("g1", 4) is None


def test_a_conflict_leaves_stream_meta_and_keys_untouched(store, redis_conn, key_prefix):
    store.append("g1", events("a"), 0, meta={"status": "waiting"})
    before = {k: redis_conn.dump(k) for k in game_keys(redis_conn, key_prefix, "g1")}
    with pytest.raises(ConcurrencyError):
        store.append("g1", events("b"), 0, "key-2", meta={"status": "playing"})
    assert {k: redis_conn.dump(k) for k in game_keys(redis_conn, key_prefix, "g1")} == before


@pytest.mark.parametrize("inline_index", [True, False])
def test_repairing_the_index_rebuilds_a_lost_index_from_the_games(redis_conn, key_prefix, inline_index):
    store = RedisEventStore(redis_conn, TestCodec(), prefix=key_prefix, clock=StepClock(), inline_index=inline_index)
    for i, status in enumerate(["waiting", "playing", "over", "playing"]):
        store.append(f"g{i}", events("a"), 0, meta={"status": status, "variant": "gin-rami"})
    store.append("g1", events("b"), 1, meta={"status": "over"})
    expected = {status: store.index.list_games(status=status) for status in ("waiting", "playing", "over")}
    expected[None] = store.index.list_games()
    assert [g["game_id"] for g in expected["over"][0]] == ["g2", "g1"]

    # as if the process died between an append and its index update, many times over
    redis_conn.delete(*redis_conn.scan_iter(match=f"{key_prefix}:{{#index}}:*"))
    assert store.index.list_games() == ([], None)

    assert store.index.repair() == 4
    assert {status: store.index.list_games(status=status) for status in expected} == expected


def test_the_index_after_append_never_goes_back_to_an_older_version(redis_conn, key_prefix):
    store = RedisEventStore(redis_conn, TestCodec(), prefix=key_prefix, inline_index=False)
    store.append("g1", events("a"), 0, meta={"status": "waiting"})
    store.append("g1", events("b"), 1, meta={"status": "playing"})
    where = f"{key_prefix}:{{#index}}:where"
    # an index entry written for a later version than the meta says (a writer that got ahead)
    redis_conn.hset(where, "g1", "9\nover\n\n1")
    assert store.index.sync("g1") is False
    assert redis_conn.hget(where, "g1") == b"9\nover\n\n1"


def test_index_updates_after_append_converge_under_concurrent_writers(redis_conn, key_prefix, caplog):
    store = RedisEventStore(redis_conn, TestCodec(), prefix=key_prefix, inline_index=False)
    statuses = ["waiting", "playing", "over"]

    def writer(t: int) -> None:
        seen = 0
        for j in range(100):
            try:
                seen = store.append("g1", [TestEvent(f"t{t}", j)], seen, meta={"status": statuses[(t + j) % 3]})
            except ConcurrencyError as exc:
                seen = exc.actual

    workers = [threading.Thread(target=writer, args=(t,)) for t in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert [r.message for r in caplog.records if r.name == "service.store.redis_store"] == []  # no update gave up
    final = redis_conn.hget(f"{key_prefix}:{{g1}}:meta", "status").decode()
    found = {s: [g["game_id"] for g in store.index.list_games(status=s)[0]] for s in statuses}
    assert found == {s: (["g1"] if s == final else []) for s in statuses}
    [summary], _ = store.index.list_games()
    assert summary["version"] == store.version("g1")


def test_a_wait_longer_than_the_socket_timeout_still_returns_the_event(redis_url, key_prefix):
    conn = redis_client(redis_url, timeout_s=0.3)
    try:
        store = RedisEventStore(conn, TestCodec(), prefix=key_prefix)
        store.append("g1", events("a"), 0)
        writer = threading.Timer(1.0, lambda: store.append("g1", events("b"), 1))
        writer.start()
        try:
            got = store.wait_for_events("g1", 1, timeout_s=30)
        finally:
            writer.join()
        assert [r.version for r in got] == [2]
        assert store.wait_for_events("g1", 2, timeout_s=0.8) == []
    finally:
        conn.close()


def test_two_stores_on_one_redis_see_each_others_appends(redis_url, key_prefix):
    # two API processes: two connections, one log
    first, second = redis_client(redis_url), redis_client(redis_url)
    try:
        a = RedisEventStore(first, TestCodec(), prefix=key_prefix)
        b = RedisEventStore(second, TestCodec(), prefix=key_prefix)
        a.append("g1", events("a"), 0, "key-1")
        assert b.version("g1") == 1
        assert b.append("g1", events("a"), 0, "key-1") == 1
        with pytest.raises(ConcurrencyError):
            b.append("g1", events("b"), 0)
        waiter = threading.Timer(0.2, lambda: a.append("g1", events("b"), 1))
        waiter.start()
        try:
            assert [r.event.name for r in b.wait_for_events("g1", 1, timeout_s=30)] == ["b"]
        finally:
            waiter.join()
    finally:
        first.close()
        second.close()


def test_a_resp3_client_reads_and_waits_like_a_resp2_one(redis_url, key_prefix):
    conn = redis.Redis.from_url(redis_url, protocol=3)
    try:
        store = RedisEventStore(conn, TestCodec(), prefix=key_prefix)
        store.append("g1", events("a", "b"), 0, meta={"status": "waiting"})
        assert [r.event.name for r in store.wait_for_events("g1", 0, timeout_s=5)] == ["a", "b"]
        assert [r.version for r in store.load("g1", after=1)] == [2]
        assert [g["game_id"] for g in store.index.list_games(status="waiting")[0]] == ["g1"]
    finally:
        conn.close()


def test_a_prefix_that_would_break_the_hash_tags_is_refused(redis_conn):
    with pytest.raises(ValueError):
        RedisEventStore(redis_conn, TestCodec(), prefix="a{b}")


def test_snapshots_are_kept_deflated_and_plain_ones_of_before_still_read(store, redis_conn, key_prefix):
    from service.store.redis_snapshots import RedisSnapshotStore

    snapshots = RedisSnapshotStore(redis_conn, key_prefix)
    store.append("g1", events(*"abc"), 0)
    state = {"hands": ["AC 2C 3C"] * 40, "note": "naïve ♠"}
    snapshots.save("g1", 3, state)
    [(member, score)] = redis_conn.zrange(f"{key_prefix}:{{g1}}:snap", 0, -1, withscores=True)
    assert score == 3 and not member.startswith(b"{")
    assert len(member) < len(json.dumps({"version": 3, "state": state}).encode()) / 2
    assert snapshots.latest("g1") == (3, state)
    # a snapshot kept as plain JSON, as the first servers kept them
    redis_conn.zadd(f"{key_prefix}:{{g1}}:snap", {json.dumps({"version": 2, "state": {"x": 1}}): 2})
    assert snapshots.latest("g1", upto=2) == (2, {"x": 1})
