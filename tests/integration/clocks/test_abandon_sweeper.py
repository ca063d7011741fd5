"""Abandoned games (RULES.md Extensions): the sweeper of ``ginbox worker`` ends every game nobody has
moved in for GINBOX_ABANDON_AFTER_S, with no winner, on a real Redis; bots and turn clocks then leave
it alone. Time is given to the sweep as data (``now_ms``); only the test of the worker's thread
itself waits, polling with a deadline and asserting nothing about durations."""

from __future__ import annotations

import time

import pytest

from service.config import Settings
from service.rules.commands import RESIGN
from workers import jobs
from workers.runner import build_context
from workers.sweeper import Sweeper, abandoned_games

HOUR_S = 3600


@pytest.fixture
def ctx(redis_url, key_prefix):
    settings = Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                        abandon_after_s=HOUR_S)
    context = build_context(settings)
    jobs.set_context(context)
    yield context
    jobs.set_context(None)


def new_game(ctx, seats: list, **extra) -> str:
    return ctx.games.create_game({"variant": "gin-rami", "seats": seats, **extra})["game_id"]


def last_ts(ctx, game_id: str) -> int:
    version = ctx.store.version(game_id)
    return ctx.store.load(game_id, after=version - 1)[-1].ts


def test_a_game_nobody_moved_in_for_the_abandon_time_ends_with_no_winner(ctx, api):
    game_id = new_game(ctx, [{"name": "ann"}, {"name": "bob"}], first_dealer=1)
    version = ctx.store.version(game_id)
    idle_since = last_ts(ctx, game_id)
    now = idle_since + HOUR_S * 1000 + 2500  # an hour and 2.5 s after the last event
    assert abandoned_games(ctx, now_ms=now) == [game_id]

    state = ctx.repository.load_state(game_id)
    assert state.version == version + 1 and state.status == "over" and state.winner is None
    assert state.end == {"reason": "abandoned", "resigned": None, "idle_s": HOUR_S + 2}
    last = ctx.store.load(game_id, after=version)[0].event
    assert type(last).TYPE == "game_abandoned" and last.scores == (0, 0) and last.hand_no == 1
    # the index lists it as over, and the API shows how it ended
    over = ctx.games.list_games("over", None, None, 100)[0]
    assert game_id in [g["game_id"] for g in over]
    view = api.get(f"/games/{game_id}").get_json()
    assert view["status"] == "over" and view["winner"] is None
    assert view["end"] == {"reason": "abandoned", "resigned": None, "idle_s": HOUR_S + 2}
    audit = api.get(f"/games/{game_id}/audit").get_json()
    assert audit["ok"], audit
    # a second sweep finds nothing more to do
    assert abandoned_games(ctx, now_ms=now + 1000) == []
    assert ctx.store.version(game_id) == version + 1


def test_a_game_moved_in_within_the_abandon_time_goes_on(ctx):
    game_id = new_game(ctx, [{"name": "ann"}, {"name": "bob"}], first_dealer=1)
    ctx.games.play_for_seat(game_id, 0, jobs.commands.PASS_UPCARD)
    version = ctx.store.version(game_id)
    assert abandoned_games(ctx, now_ms=last_ts(ctx, game_id) + HOUR_S * 1000 - 1) == []
    assert ctx.store.version(game_id) == version
    assert ctx.repository.load_state(game_id).status == "playing"


def test_a_game_whose_seats_never_filled_is_abandoned_too(ctx):
    game_id = new_game(ctx, [{"name": "ann"}, None])
    assert ctx.repository.load_state(game_id).status == "waiting"
    assert abandoned_games(ctx, now_ms=last_ts(ctx, game_id) + HOUR_S * 1000) == [game_id]
    assert ctx.repository.load_state(game_id).status == "over"


def test_an_abandon_time_of_zero_abandons_nothing(ctx):
    game_id = new_game(ctx, [{"name": "ann"}, {"name": "bob"}])
    ctx.settings.abandon_after_s = 0
    assert abandoned_games(ctx, now_ms=last_ts(ctx, game_id) + 365 * 24 * HOUR_S * 1000) == []
    assert ctx.repository.load_state(game_id).status == "playing"
    assert Sweeper(ctx).abandon_every_s is None


def test_bots_and_turn_clocks_do_not_act_on_a_game_that_ended(ctx):
    # ann (seat 0, a human with a turn clock) against a bot; ann resigns while the bot is to act
    game_id = new_game(ctx, [{"name": "ann"}, {"bot": "basic"}], first_dealer=1, options={"turn_timeout_s": 5})
    ctx.games.play_for_seat(game_id, 0, jobs.commands.PASS_UPCARD)
    bot_version = ctx.store.version(game_id)
    assert ctx.repository.load_state(game_id).to_act == (1,)
    ctx.games.play_for_seat(game_id, 0, RESIGN)
    ended = ctx.store.version(game_id)
    assert ended == bot_version + 1
    assert jobs.play_bot_turn(game_id, bot_version) == "moved_on"
    assert jobs.play_bot_turn(game_id, ended) == "no_bot_to_act"
    assert jobs.play_timed_out_turn(game_id, ended) == "moved_on"
    assert ctx.store.version(game_id) == ended
    # nor does the sweeper abandon a game that is over
    assert abandoned_games(ctx, now_ms=last_ts(ctx, game_id) + 10 * HOUR_S * 1000) == []
    assert ctx.store.version(game_id) == ended


@pytest.mark.slow
def test_the_worker_sweeper_thread_abandons_an_idle_game_by_itself(ctx):
    """The thread of ``ginbox worker``, with an abandon time of 1 s: it looks every second."""
    ctx.settings.abandon_after_s = 1
    game_id = new_game(ctx, [{"name": "ann"}, {"name": "bob"}])
    sweeper = Sweeper(ctx, tick_s=0.1)
    assert sweeper.abandon_every_s == 1.0
    sweeper.start()
    try:
        deadline = time.monotonic() + 30
        while ctx.repository.load_state(game_id).status != "over" and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        sweeper.stop()
        sweeper.join(timeout=10)
    state = ctx.repository.load_state(game_id)
    assert state.status == "over" and state.end["reason"] == "abandoned" and state.winner is None
    assert state.end["idle_s"] >= 1
