"""Stream opens are counted in a budget of their own (GINBOX_RATE_LIMIT_STREAMS), on the real app,
limiter and Redis: a bot or a watcher that used up its requests still hears its games and its turns.

The limiter's clock is held 10 s into a minute, so the counts never straddle two windows.
"""

from __future__ import annotations

import pytest
from support.apiclient import ValidatingClient, make_app

LIMIT = 6
STREAMS = 3
START = 30_000 * 60 + 10.0


@pytest.fixture
def app(redis_url, key_prefix):
    app = make_app(redis_url, key_prefix, rate_limit_per_minute=LIMIT, stream_opens_per_minute=STREAMS)
    app.extensions["ginbox"].limiter.clock = lambda: START
    return app


def events_of(resp) -> list[str]:
    """The ``event:`` of each message of a finished stream."""
    out = []
    for block in resp.get_data(as_text=True).split("\n\n"):
        for line in block.splitlines():
            if line.startswith("event: "):
                out.append(line[len("event: "):])
    return out


def spend(api, path: str, token: str | None = None) -> None:
    """Send requests until one is refused: the request budget is used up."""
    for _ in range(LIMIT + 1):
        resp = api.get(path, token=token)
        if resp.status_code == 429:
            assert resp.headers["RateLimit"].startswith('"default";r=0;')
            return
        assert resp.status_code == 200
    raise AssertionError("never refused")


def test_a_bot_over_its_request_limit_still_opens_its_stream_and_hears_its_turn(app):
    api = ValidatingClient(app)
    made = api.post("/bots", json={"name": "alpha"})
    assert made.status_code == 201
    token = made.get_json()["token"]
    # alpha sits at seat 0, the non-dealer: it is to act first
    created = api.post("/games", json={"variant": "gin-rami", "first_dealer": 1,
                                       "seats": [{"account": "alpha"}, {"name": "ann"}]}, token=token)
    assert created.status_code == 201, created.get_data(as_text=True)
    spend(api, "/bots/me", token)
    assert api.get("/bots/me", token=token).status_code == 429

    resp = api.get("/bots/me/stream?once=1", token=token)
    assert resp.status_code == 200
    assert events_of(resp)[:2] == ["game_started", "your_turn"]
    assert resp.headers["RateLimit-Policy"] == f'"streams";q={STREAMS};w=60, "address-streams";q={STREAMS * 10};w=60'
    assert resp.headers["RateLimit"] == f'"streams";r={STREAMS - 1};t=50, "address-streams";r={STREAMS * 10 - 1};t=50'
    # the stream budget is a budget too: the fourth open in the minute is refused, and says why
    for _ in range(STREAMS - 1):
        assert api.get("/bots/me/stream?once=1", token=token).status_code == 200
    refused = api.get("/bots/me/stream?once=1", token=token)
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "50"
    assert "stream opens" in refused.get_json()["detail"] and "minute" in refused.get_json()["detail"]


def test_a_watcher_over_its_request_limit_still_opens_a_game_stream_and_hears_its_events(app):
    api = ValidatingClient(app)
    created = api.post("/games", json={"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
    assert created.status_code == 201
    game_id = created.get_json()["game_id"]
    spend(api, f"/games/{game_id}")  # no token: the address's budget
    resp = api.get(f"/games/{game_id}/stream?once=1")
    assert resp.status_code == 200
    assert events_of(resp)[0] == "game_created"
    assert resp.headers["RateLimit"] == f'"streams";r={STREAMS - 1};t=50'
    # opening streams uses none of the request budget, and requests none of the streams'
    assert api.get(f"/games/{game_id}").status_code == 429
