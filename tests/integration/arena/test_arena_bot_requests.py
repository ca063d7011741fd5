"""Two arena bots (workers/arena_bot.py) play a whole game against each other within the default rate
limit (600 requests a minute per token): a move costs no ``POST /analysis/melds`` (the bot works its
melds out from the view), a draw and its discard cost one look (a move's answer is the new view),
and a turn the bot has played already costs nothing."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from service.config import Settings
from support.apiclient import ValidatingClient
from support.arena_fixtures import app, base  # noqa: F401 (fixtures)
from support.arena_http import register
from workers.arena_bot import ArenaBot


@pytest.fixture
def settings(redis_url, key_prefix) -> Settings:
    # the default rate limit; the stream's own timings short
    return Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                    rate_limit_per_minute=600, extra={"stream_keepalive_s": 0.5, "stream_max_s": 20.0})


@pytest.mark.timeout(300)
def test_two_arena_bots_play_a_game_to_100_within_the_default_rate_limit(app, base, capsys):  # noqa: F811
    client = ValidatingClient(app)
    alpha, beta = register(client, "alpha"), register(client, "beta")
    bots = [ArenaBot(base, alpha, threads=4, accept_challenges=True, deadline_s=240),
            ArenaBot(base, beta, threads=4, deadline_s=240)]
    runners = [threading.Thread(target=bot.run, daemon=True) for bot in bots]
    for runner in runners:
        runner.start()
    try:
        made = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, token=beta).get_json()
        end = time.monotonic() + 200
        while (c := client.get(f"/challenges/{made['challenge_id']}").get_json()).get("game_id") is None:
            assert time.monotonic() < end
            time.sleep(0.1)
        while client.get(f"/games/{c['game_id']}").get_json()["status"] != "over":
            assert time.monotonic() < end, "the game did not end"
            time.sleep(0.2)
        game = client.get(f"/games/{c['game_id']}").get_json()
    finally:
        for bot in bots:
            bot.stop.set()
        for runner in runners:
            runner.join(timeout=60)
    assert max(game["scores"]) >= 100
    assert all(bot.errors == [] for bot in bots)
    moves = sum(bot.turns_played for bot in bots)
    requests = sum(bot.requests for bot in bots)
    # a draw and its discard: one look and two moves (1.5 a move); a lone upcard decision: a look and
    # a move (2); the accept: one request
    assert requests <= 2 * moves, (requests, moves)
    print(f"{moves} moves, {requests} requests: {requests / moves:.2f} a move", file=sys.__stderr__)
    assert "429" not in capsys.readouterr().err
