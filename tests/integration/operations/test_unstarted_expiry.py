"""Unstarted games expire: the sweeper of ``ginbox worker`` ends every game whose seats were still
not all taken GINBOX_UNSTARTED_EXPIRE_S after its creation, with a ``game_expired`` event and no
winner, on a real Redis. Time is given to the sweep as data (``now_ms``); only the test of the
worker's thread itself waits, polling with a deadline."""

from __future__ import annotations

import time

import pytest

from service.config import Settings
from workers import jobs
from workers.runner import build_context
from workers.sweeper import Sweeper, expired_games

AFTER_S = 60


@pytest.fixture
def ctx(redis_url, key_prefix):
    settings = Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                        unstarted_expire_s=AFTER_S)
    context = build_context(settings)
    jobs.set_context(context)
    yield context
    jobs.set_context(None)


def new_game(ctx, seats: list) -> str:
    return ctx.games.create_game({"variant": "gin-rami", "seats": seats})["game_id"]


def created_ts(ctx, game_id: str) -> int:
    return ctx.store.load(game_id, upto=1)[0].ts


def listed(ctx, status: str) -> list[str]:
    return [g["game_id"] for g in ctx.games.list_games(status, None, None, 100)[0]]


def test_a_game_whose_seats_were_never_all_taken_expires_over_with_no_winner(ctx, api):
    game_id = new_game(ctx, [{"name": "ann"}, None])
    assert listed(ctx, "waiting") == [game_id]
    version = ctx.store.version(game_id)
    now = created_ts(ctx, game_id) + AFTER_S * 1000 + 1500  # 61.5 s after its creation
    assert expired_games(ctx, now_ms=now) == [game_id]

    state = ctx.repository.load_state(game_id)
    assert state.version == version + 1 and state.status == "over" and state.winner is None
    assert state.end == {"reason": "expired", "resigned": None, "idle_s": 61}
    last = ctx.store.load(game_id, after=version)[0].event
    assert type(last).TYPE == "game_expired" and last.waited_s == 61 and last.scores == (0, 0)
    # off the open games, listed as over
    assert listed(ctx, "waiting") == [] and listed(ctx, "over") == [game_id]
    view = api.get(f"/games/{game_id}").get_json()
    assert view["status"] == "over" and view["winner"] is None
    assert view["end"] == {"reason": "expired", "resigned": None, "idle_s": 61}
    events = api.get(f"/games/{game_id}/events").get_json()["events"]
    assert events[-1]["type"] == "game_expired" and events[-1]["data"]["waited_s"] == 61
    audit = api.get(f"/games/{game_id}/audit").get_json()
    assert audit["ok"], audit
    # a seat of an expired game cannot be claimed, and a second sweep finds nothing to do
    claim = api.post(f"/games/{game_id}/seats/1", json={"name": "bob"})
    assert claim.status_code == 409
    assert expired_games(ctx, now_ms=now + 1000) == []
    assert ctx.store.version(game_id) == version + 1


def test_a_game_not_yet_due_or_started_does_not_expire(ctx, api):
    young = new_game(ctx, [{"name": "ann"}, None])
    assert expired_games(ctx, now_ms=created_ts(ctx, young) + AFTER_S * 1000 - 1) == []
    full = new_game(ctx, [{"name": "ann"}, {"name": "bob"}])
    filled = new_game(ctx, [{"name": "ann"}, None])
    assert api.post(f"/games/{filled}/seats/1", json={"name": "bob"}).status_code == 201
    # a day later: only the game with a free seat expires
    later = created_ts(ctx, young) + 24 * 3600 * 1000
    assert expired_games(ctx, now_ms=later) == [young]
    for game_id in (full, filled):
        assert ctx.repository.load_state(game_id).status == "playing"


def test_the_worker_sweeper_expires_unstarted_games_by_itself(redis_url, key_prefix):
    settings = Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                        unstarted_expire_s=0.5)
    context = build_context(settings)
    jobs.set_context(context)
    sweeper = Sweeper(context, tick_s=0.05)
    try:
        game_id = new_game(context, [{"name": "ann"}, None])
        sweeper.start()
        deadline = time.monotonic() + 20
        while context.repository.load_state(game_id).status != "over":
            assert time.monotonic() < deadline, "the sweeper never expired the game"
            time.sleep(0.1)
        assert context.repository.load_state(game_id).end["reason"] == "expired"
    finally:
        sweeper.stop()
        sweeper.join(timeout=10)
        jobs.set_context(None)
