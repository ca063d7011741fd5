"""The RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10) on the real
app, limiter and Redis: every counted answer says the budget, what is left and when it turns.

The limiter's clock is held 10 s into a minute (and into an hour), so each window's end is known.
"""

from __future__ import annotations

import pytest
from support.apiclient import ValidatingClient, load_openapi, make_app

LIMIT = 5
START = 30_000 * 60 + 10.0  # 10 s into a minute, and into an hour (30_000 minutes = 500 hours)


@pytest.fixture
def app(redis_url, key_prefix):
    app = make_app(redis_url, key_prefix, rate_limit_per_minute=LIMIT, creations_per_hour=7,
                   creations_per_day=9)
    app.extensions["ginbox"].limiter.clock = lambda: START
    return app


def test_each_counted_answer_says_the_budget_what_is_left_and_when_it_turns(app):
    client = ValidatingClient(app, load_openapi())  # from 127.0.0.1
    for left in (4, 3, 2, 1, 0):
        resp = client.get("/games")
        assert resp.status_code == 200
        assert resp.headers["RateLimit-Policy"] == '"default";q=5;w=60'
        assert resp.headers["RateLimit"] == f'"default";r={left};t=50'
    refused = client.get("/games")
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "50"
    assert refused.headers["RateLimit-Policy"] == '"default";q=5;w=60'
    assert refused.headers["RateLimit"] == '"default";r=0;t=50'
    # another address has its own budget
    other = app.test_client().get("/games", environ_base={"REMOTE_ADDR": "10.9.0.1"})
    assert other.headers["RateLimit"] == '"default";r=4;t=50'


def test_a_creation_also_says_its_hourly_and_daily_budgets(app):
    client = ValidatingClient(app, load_openapi())
    body = {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}
    resp = client.post("/games", json=body)
    assert resp.status_code == 201
    # 10 s into hour 500; day 20 ends at 21 * 86400 = 1_814_400, 14_390 s after START
    assert resp.headers["RateLimit-Policy"] == ('"default";q=5;w=60, "creations-hour";q=7;w=3600, '
                                                '"creations-day";q=9;w=86400')
    assert resp.headers["RateLimit"] == ('"default";r=4;t=50, "creations-hour";r=6;t=3590, '
                                         '"creations-day";r=8;t=14390')


def test_probes_and_documents_are_not_counted_and_say_nothing(app):
    client = app.test_client()
    resp = client.get("/healthz")
    assert resp.status_code == 200
    assert "RateLimit" not in resp.headers and "RateLimit-Policy" not in resp.headers


def test_a_browser_may_read_the_fields(app):
    resp = app.test_client().get("/games", headers={"Origin": "https://example.org"})
    exposed = {h.strip() for h in resp.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"RateLimit", "RateLimit-Policy"} <= exposed


def test_what_is_left_counts_the_other_processes_use_as_redis_last_said(redis_conn, key_prefix):
    """Two limiters (two API processes) on one counter of 100: each says what nobody had reserved
    when it last asked Redis, plus the counts it holds unused."""
    from service.ratelimit import RateLimiter

    clock = lambda: START  # noqa: E731
    a, b = (RateLimiter(redis_conn, key_prefix, 100, clock, max_block=8) for _ in range(2))
    who = ("token", "shared")
    # a reserves 1, then 2 (one held unused), then uses the one it held
    assert [a.hit(who).standings[0].remaining for _ in range(3)] == [99, 98, 97]
    # b reserves 1: 4 of the 100 are gone
    assert b.hit(who).standings[0].remaining == 96
    # a reserves 4 (3 held unused): 5 used, 95 left, whoever holds them
    standing = a.hit(who).standings[0]
    assert (standing.kind, standing.limit, standing.window_s, standing.remaining, standing.reset_s) == (
        "token", 100, 60, 95, 50)


def test_an_hourly_counter_lives_for_its_hour(redis_conn, key_prefix):
    from service.ratelimit import RateLimiter

    limiter = RateLimiter(redis_conn, key_prefix, 10, lambda: START, limits={"create-hour": (5, 3600)})
    verdict = limiter.hit(("create-hour", "10.0.0.9"))
    assert verdict.allowed and verdict.standings[0].remaining == 4 and verdict.standings[0].reset_s == 3590
    key = limiter.key("create-hour", "10.0.0.9", int(START // 3600))
    assert int(redis_conn.get(key)) == 1
    assert 60 + 1 < redis_conn.ttl(key) <= 3600 + 1
