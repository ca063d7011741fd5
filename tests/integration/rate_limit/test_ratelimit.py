"""RateLimiter on a real Redis server and on a Redis Cluster: one count per identity and window."""

from __future__ import annotations

import pytest
from support.cluster import RedisClusterProcesses

from service.ratelimit import WINDOW_S, RateLimiter


class Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def cluster_client(tmp_path_factory):
    nodes = RedisClusterProcesses(tmp_path_factory.mktemp("cluster")).start()
    client = nodes.client()
    try:
        yield client
    finally:
        client.close()
        nodes.stop()


@pytest.fixture(params=["server", "cluster"])
def conn(request, redis_conn):
    return redis_conn if request.param == "server" else request.getfixturevalue("cluster_client")


@pytest.mark.slow
def test_the_request_over_the_limit_of_any_identity_is_refused_until_the_window_turns(conn, key_prefix):
    clock = Clock(600 * WINDOW_S + 10.0)  # 10 s into a window: the next one starts in 50 s
    limiter = RateLimiter(conn, key_prefix, 3, clock)
    addr, token = ("addr", "10.0.0.1"), ("token", "secret")
    assert [limiter.hit(addr, token).allowed for _ in range(3)] == [True, True, True]
    refused = limiter.hit(addr)
    assert not refused.allowed and refused.retry_after == 50
    # the token's own count is still 3: a fourth request with it, from elsewhere, is refused too
    assert not limiter.hit(("addr", "10.0.0.2"), token).allowed
    assert limiter.hit(("addr", "10.0.0.2")).allowed
    clock.now += 50.0  # the next window
    assert limiter.hit(addr, token).allowed


def test_each_counter_expires_after_its_window_and_holds_no_identity_in_clear(conn, key_prefix):
    clock = Clock(900 * WINDOW_S)
    limiter = RateLimiter(conn, key_prefix, 10, clock)
    limiter.hit(("addr", "10.0.0.1"), ("token", "secret-token"))
    keys = [limiter.key("addr", "10.0.0.1", 900), limiter.key("token", "secret-token", 900)]
    assert [int(conn.get(k)) for k in keys] == [1, 1]
    assert all(0 < conn.ttl(k) <= WINDOW_S + 1 for k in keys)
    assert not any("secret-token" in k or "10.0.0.1" in k for k in keys)


def test_processes_sharing_a_counter_never_let_more_than_the_limit_through(conn, key_prefix):
    """Two limiters (two API processes) reserving blocks of up to 8 counts of one identity.

    Whatever the interleaving, at most the limit passes; a refusal comes no earlier than the
    limit less the counts the other process may hold unused (block - 1).
    """
    import random

    clock = Clock(1200 * WINDOW_S + 1.0)
    procs = [RateLimiter(conn, key_prefix, 100, clock, max_block=8) for _ in range(2)]
    rng = random.Random(7)
    allowed, first_refusal = 0, None
    for _ in range(400):
        if procs[rng.randrange(2)].hit(("token", "shared")).allowed:
            allowed += 1
        elif first_refusal is None:
            first_refusal = allowed
    assert allowed <= 100
    assert first_refusal is not None and first_refusal >= 100 - 7
    # once both have seen the counter full, every later request is refused, by either process
    assert not any(p.hit(("token", "shared")).allowed for p in procs for _ in range(10))


def test_threads_of_one_process_share_its_reserved_counts_without_passing_the_limit(conn, key_prefix):
    import threading

    clock = Clock(1300 * WINDOW_S + 1.0)
    limiter = RateLimiter(conn, key_prefix, 250, clock, max_block=16)
    other = RateLimiter(conn, key_prefix, 250, clock, max_block=16)
    results: list[bool] = []
    lock = threading.Lock()

    def hammer(lim):
        mine = [lim.hit(("addr", "10.1.1.1"), ("token", "t")).allowed for _ in range(60)]
        with lock:
            results.extend(mine)

    threads = [threading.Thread(target=hammer, args=(limiter if i % 3 else other,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 480
    assert 250 - 2 * 15 <= sum(results) <= 250


def test_a_busy_identity_costs_a_round_trip_per_block_not_per_request(redis_conn, key_prefix):
    clock = Clock(1400 * WINDOW_S + 1.0)
    limiter = RateLimiter(redis_conn, key_prefix, 1_000_000, clock)
    assert limiter.max_block == 32

    def script_calls() -> int:
        stats = redis_conn.info("commandstats")
        return sum(stats.get(f"cmdstat_{c}", {}).get("calls", 0) for c in ("evalsha", "eval"))

    before = script_calls()
    assert all(limiter.hit(("token", "busy")).allowed for _ in range(1000))
    calls = script_calls() - before
    # blocks of 1, 2, 4, 8, 16 (31 counts), then 32 at a time: 5 + ceil(969 / 32) = 36 calls
    assert calls == 36
    # what Redis counted is what was used, plus the rest of the last block
    assert 1000 <= int(redis_conn.get(limiter.key("token", "busy", 1400))) <= 1000 + 31


def test_a_process_remembers_a_bounded_number_of_leases_and_forgets_a_past_windows(redis_conn, key_prefix,
                                                                                     monkeypatch):
    import service.ratelimit as rl

    monkeypatch.setattr(rl, "MAX_LEASES", 50)
    clock = Clock(1500 * WINDOW_S + 1.0)
    limiter = RateLimiter(redis_conn, key_prefix, 10_000, clock)
    for i in range(200):
        assert limiter.hit(("addr", f"10.2.0.{i}")).allowed
    assert len(limiter._leases) == 50
    # a forgotten lease only loses the counts it held: the identity is counted on in Redis
    assert limiter.hit(("addr", "10.2.0.0")).allowed
    assert int(redis_conn.get(limiter.key("addr", "10.2.0.0", 1500))) == 2
    clock.now += WINDOW_S
    assert limiter.hit(("addr", "10.2.0.1")).allowed
    assert list(limiter._leases) == [("addr", "10.2.0.1", 1501)]
