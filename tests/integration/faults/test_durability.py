"""Every append Redis acknowledged survives kill -9 of the server (appendonly, appendfsync always)."""

from __future__ import annotations

import threading
import time

import pytest
import redis
from support.store_behaviour import TestCodec, TestEvent

from service.connections import redis_client
from service.redis_process import RedisServerProcess
from service.store import ConcurrencyError
from service.store.redis_store import RedisEventStore


def open_store(server: RedisServerProcess) -> tuple[redis.Redis, RedisEventStore]:
    conn = redis_client(server.url, timeout_s=2.0)
    return conn, RedisEventStore(conn, TestCodec(), prefix="dur")


@pytest.fixture
def server(tmp_path):
    proc = RedisServerProcess(tmp_path / "data").start()
    yield proc
    proc.kill()


def restart(server: RedisServerProcess) -> RedisServerProcess:
    """A new server process on the data directory of a killed one."""
    return RedisServerProcess(server.data_dir).start()


def test_acknowledged_appends_survive_kill_9(server):
    conn, store = open_store(server)
    config = conn.config_get("append*")
    assert (config["appendonly"], config["appendfsync"]) == ("yes", "always")
    n = 300
    for i in range(n):
        key = f"k{i}"
        # one event per append, alternating between two games, each with an idempotency key
        game = f"g{i % 2}"
        store.append(game, [TestEvent(game, i)], i // 2, key)
    conn.close()

    server.kill()
    server = restart(server)
    try:
        conn, store = open_store(server)
        for g in (0, 1):
            log = store.load(f"g{g}")
            assert [r.event for r in log] == [TestEvent(f"g{g}", i) for i in range(g, n, 2)]
            assert [r.version for r in log] == list(range(1, n // 2 + 1))
            assert store.version(f"g{g}") == n // 2
        # the idempotency keys survived too: a retry of the last append answers as before
        assert store.append("g1", [TestEvent("g1", n - 1)], 0, f"k{n - 1}") == n // 2
        conn.close()
    finally:
        server.kill()


def test_a_crash_in_the_middle_of_writing_loses_no_acknowledged_event(server):
    acknowledged: list[tuple[int, int]] = []  # (version, n)
    stop = threading.Event()

    def writer() -> None:
        conn, store = open_store(server)
        version, n = 0, 0
        while not stop.is_set() and n < 100_000:
            try:
                version = store.append("g1", [TestEvent("w", n)], version)
            except (redis.RedisError, ConcurrencyError):
                return  # the server is gone: whatever was not acknowledged may or may not be there
            acknowledged.append((version, n))
            n += 1
        conn.close()

    thread = threading.Thread(target=writer)
    thread.start()
    deadline = time.monotonic() + 30
    while len(acknowledged) < 200 and time.monotonic() < deadline:
        time.sleep(0.01)
    server.kill()  # while the writer is still appending
    stop.set()
    thread.join()
    assert len(acknowledged) >= 200

    server = restart(server)
    try:
        conn, store = open_store(server)
        log = store.load("g1")
        by_version = {r.version: r.event for r in log}
        for version, n in acknowledged:
            assert by_version[version] == TestEvent("w", n)
        # at most the one append in flight at the kill may be there without its acknowledgement
        assert len(log) - len(acknowledged) in (0, 1)
        assert [r.version for r in log] == list(range(1, len(log) + 1))
        assert store.version("g1") == len(log)
        conn.close()
    finally:
        server.kill()
