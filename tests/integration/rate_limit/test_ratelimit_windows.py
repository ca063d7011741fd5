"""Game creations and bot registrations are bounded per address by the hour and by the day as well
as by the minute, on the real app, limiter and Redis, with small settings.

The limiter's clock starts 10 s into an hour (30_000 minutes = 500 hours), 14_390 s before its day
ends (day 20 ends at 21 x 86_400 = 1_814_400).
"""

from __future__ import annotations

import pytest
from support.apiclient import ValidatingClient, make_app

START = 30_000 * 60 + 10.0


class Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(START)


@pytest.fixture
def api(redis_url, key_prefix, clock):
    app = make_app(redis_url, key_prefix, creations_per_hour=2, creations_per_day=3,
                   registrations_per_hour=2, registrations_per_day=3)
    app.extensions["ginbox"].limiter.clock = clock
    return ValidatingClient(app)


def create(api, token: str | None = None):
    return api.post("/games", json={"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]},
                    token=token)


def test_creations_past_the_hour_then_the_day_are_refused_naming_the_window(api, clock):
    assert [create(api).status_code for _ in range(2)] == [201, 201]
    refused = create(api)
    assert refused.status_code == 429
    body = refused.get_json()
    assert body["code"] == "rate_limited"
    assert "game creations" in body["detail"] and "this hour (at most 2)" in body["detail"]
    assert refused.headers["Retry-After"] == "3590"
    assert '"creations-hour";r=0;t=3590' in refused.headers["RateLimit"]
    # the next hour: one more creation fits the day's 3, then the day refuses until it ends
    clock.now = START + 3600
    assert create(api).status_code == 201
    refused = create(api)
    assert refused.status_code == 429
    assert "this day (at most 3)" in refused.get_json()["detail"]
    assert refused.headers["Retry-After"] == str(14_390 - 3600)
    # the refusals created nothing: three games in the listing
    assert len(api.get("/games").get_json()["games"]) == 3


def test_a_challenge_is_a_creation_too_and_a_bot_token_does_not_dodge_the_address(api):
    token = api.post("/bots", json={"name": "alpha"}).get_json()["token"]
    api.post("/bots", json={"name": "beta"})
    assert [create(api, token).status_code for _ in range(2)] == [201, 201]
    refused = api.post("/challenges", json={"to": "beta", "variant": "gin-rami"}, token=token)
    assert refused.status_code == 429 and "game creations" in refused.get_json()["detail"]
    # another address has its own
    other = api.app.test_client().post("/games", json={"variant": "gin-rami", "seats": [{"name": "a"}, {"name": "b"}]},
                                       environ_base={"REMOTE_ADDR": "10.7.0.1"})
    assert other.status_code == 201


def test_registrations_past_the_hour_are_refused_naming_the_window(api, clock):
    assert [api.post("/bots", json={"name": n}).status_code for n in ("alpha", "beta")] == [201, 201]
    refused = api.post("/bots", json={"name": "gamma"})
    assert refused.status_code == 429
    assert "bot registrations" in refused.get_json()["detail"] and "this hour" in refused.get_json()["detail"]
    assert refused.headers["Retry-After"] == "3590"
    assert api.get("/bots/gamma").status_code == 404
    clock.now = START + 3600
    assert api.post("/bots", json={"name": "gamma"}).status_code == 201
    refused = api.post("/bots", json={"name": "delta"})
    assert refused.status_code == 429 and "this day (at most 3)" in refused.get_json()["detail"]
