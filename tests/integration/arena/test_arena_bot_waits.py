"""workers/arena_bot.py against a real server whose rate limit is used up: its stream waits out the
429 as the answer's Retry-After asks (bounded by --max-wait) instead of connecting again at once."""

from __future__ import annotations

import threading
import time

import pytest

from service.config import Settings
from support.apiclient import ValidatingClient
from support.arena_fixtures import app, base  # noqa: F401 (fixtures)
from workers.arena_bot import ArenaBot

LIMIT = 3


@pytest.fixture
def settings(redis_url, key_prefix) -> Settings:
    return Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                    rate_limit_per_minute=LIMIT, stream_opens_per_minute=LIMIT)


def use_up_the_limit(client, token: str) -> int:
    """Send requests with the bot's token until one is refused; that answer's Retry-After."""
    for _ in range(LIMIT + 2):
        resp = client.get("/bots/me/stream?once=1", token=token)
        if resp.status_code == 429:
            assert resp.get_json()["code"] == "rate_limited"
            return int(resp.headers["Retry-After"])
        assert resp.status_code == 200
    raise AssertionError("the limit was never reached")


def first_stream_wait(bot: ArenaBot) -> float:
    """Run the bot until it chose its first wait before connecting again; stop it; that wait."""
    runner = threading.Thread(target=bot.run, daemon=True)
    runner.start()
    try:
        for _ in range(400):
            if bot.stream_waits or not runner.is_alive():
                break
            time.sleep(0.05)
    finally:
        bot.stop.set()
        runner.join(timeout=30)
    assert not runner.is_alive()
    assert bot.stream_waits, "the bot never had to wait"
    return bot.stream_waits[0]


def test_the_arena_bot_waits_out_a_429_on_its_stream_as_retry_after_asks(app, base, capsys):  # noqa: F811
    client = ValidatingClient(app)
    resp = client.post("/bots", json={"name": "alpha", "description": "waits", "owner": "tests"})
    assert resp.status_code == 201
    token = resp.get_json()["token"]
    asked = use_up_the_limit(client, token)
    if asked < 5:  # the window is about to turn: start again in the next one
        time.sleep(asked + 0.2)
        asked = use_up_the_limit(client, token)

    patient = ArenaBot(base, token, threads=1, max_wait_s=600)
    waited = first_stream_wait(patient)
    # the server's Retry-After counts down from ``asked`` (a second or two passed), plus 0-20% jitter
    assert asked - 2 <= waited <= asked * 1.2 + 0.1
    assert patient.connections == 1, "stopped during the wait: no second attempt"

    bounded = ArenaBot(base, token, threads=1, max_wait_s=1.0)
    assert 1.0 <= first_stream_wait(bounded) <= 1.2
    assert bounded.connections == 1
    # reported under its own name, the problem as text (status, code, detail), not as a dict
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "stream:" in ln]
    assert len(lines) == 2
    for line in lines:
        assert line.startswith("arena_bot: stream: 429 rate_limited: too many requests")
        assert "Retry-After: " in line and "{" not in line
