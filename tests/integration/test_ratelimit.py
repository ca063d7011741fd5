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
