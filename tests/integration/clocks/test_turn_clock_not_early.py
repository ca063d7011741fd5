"""The turn clock never plays before the deadline the view publishes (``turn_deadline_ms``: the ts of
the game's last event plus ``turn_timeout_s``).

RQ keeps a scheduled job's due time in whole seconds, the fraction cut off, so a clock scheduled for
12.896 s was released at 12.000 s and could play up to a second early: a person moving just before
the deadline they were shown lost the turn to the clock. The checks below are on the timestamps the
log recorded, not on how fast anything ran.
"""

from __future__ import annotations

import time

import pytest
from rq.job import Job

from service import bots
from service.app import create_app
from service.composition import make_bot_scheduler
from service.config import Settings
from support.apiclient import ValidatingClient
from support.gameplay import create_game
from support.job_context import ctx  # noqa: F401 (fixture)
from support.servers import WorkerProcess, service_env
from workers import jobs

GAMES = 12
#: turn_timed_out events to collect across the games before looking
WANTED = 80


@pytest.fixture
def settings(redis_url, key_prefix) -> Settings:
    return Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                    rate_limit_per_minute=100000)


def _event_logs(client, game_ids) -> dict[str, list[dict]]:
    return {g: client.get(f"/games/{g}/events?limit=1000").get_json()["events"] for g in game_ids}


# slow: waits for 80 one-second clocks to play (about 17 s)
@pytest.mark.slow
def test_no_clock_plays_before_the_published_deadline(settings, redis_url, key_prefix, tmp_path):
    app = create_app(settings, bot_scheduler=make_bot_scheduler(settings))
    client = ValidatingClient(app)
    # two people who never move: every move of these games is the clock's
    games = [create_game(client, "gin-rami", [{"name": "ann"}, {"name": "bob"}], options={"turn_timeout_s": 1})
             for _ in range(GAMES)]
    game_ids = [g.game_id for g in games]
    worker = WorkerProcess(service_env(redis_url, key_prefix), tmp_path / "worker.log").start()
    try:
        give_up = time.monotonic() + 120
        while True:
            logs = _event_logs(client, game_ids)
            played = sum(1 for events in logs.values() for e in events if e["type"] == "turn_timed_out")
            if played >= WANTED:
                break
            if time.monotonic() > give_up:
                raise AssertionError(f"only {played} clocks played; worker log:\n{worker.log_text()}")
            time.sleep(0.5)
    finally:
        worker.stop()

    early = []
    checked = 0
    for game_id, events in logs.items():
        for before, event in zip(events, events[1:]):
            if event["type"] != "turn_timed_out":
                continue
            checked += 1
            # the deadline the view showed at the version before: that event's ts plus 1 s
            if event["ts"] < before["ts"] + 1000:
                early.append((game_id, event["version"], event["ts"] - before["ts"]))
    assert checked >= WANTED
    assert early == [], f"{len(early)} of {checked} clocks played early (game, version, ms after the last event)"


def _clocked_game(ctx) -> tuple[str, int, int]:
    created = ctx.games.create_game({"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                     "options": {"turn_timeout_s": 30}, "first_dealer": 1})
    game_id = created["game_id"]
    version = ctx.store.version(game_id)
    deadline = ctx.games.view(game_id, None).view["turn_deadline_ms"]
    return game_id, version, deadline


def test_a_clock_run_before_the_deadline_plays_nothing_and_waits_for_it_again(ctx):
    """A clock released early (another host's clock ahead of this one) does not play: it is scheduled
    again for the whole second at or after the deadline, under an id of its own."""
    game_id, version, deadline = _clocked_game(ctx)
    registry = ctx.queue.scheduled_job_registry
    first = bots.clock_job_id(game_id, version)
    assert registry.get_job_ids() == [first]
    assert registry.get_scheduled_time(first).timestamp() * 1000 >= deadline

    assert jobs.play_timed_out_turn(game_id, version) == "early"
    assert ctx.store.version(game_id) == version  # nothing played
    again = bots.clock_job_id(game_id, version, attempt=1)
    assert sorted(registry.get_job_ids()) == sorted([first, again])
    due = registry.get_scheduled_time(again).timestamp() * 1000
    assert deadline <= due < deadline + 1000 and due % 1000 == 0
    job = Job.fetch(again, connection=ctx.queue.connection, serializer=ctx.queue.serializer)
    assert job.func_name == bots.PLAY_TIMED_OUT_TURN and job.args == [game_id, version, 1]
    # the same early run again (an RQ retry) schedules nothing more
    assert jobs.play_timed_out_turn(game_id, version) == "early"
    assert sorted(registry.get_job_ids()) == sorted([first, again])


def test_a_clock_whose_turn_has_moved_on_does_nothing_even_before_its_deadline(ctx):
    game_id, version, _ = _clocked_game(ctx)
    ctx.games.play_for_seat(game_id, 0, jobs.commands.PASS_UPCARD)
    moved = ctx.store.version(game_id)
    assert jobs.play_timed_out_turn(game_id, version) == "moved_on"
    assert jobs.play_timed_out_turn(game_id, version, 1) == "moved_on"
    assert ctx.store.version(game_id) == moved
    # only the clocks of the two turns, none scheduled again for the old one
    assert sorted(ctx.queue.scheduled_job_registry.get_job_ids()) == sorted(
        [bots.clock_job_id(game_id, version), bots.clock_job_id(game_id, moved)])


def test_clock_job_ids_of_different_games_never_meet():
    # a game id may hold '-' and digits: the attempt's id has a letter, so no version's id is the same
    assert bots.clock_job_id("x-1", 2) != bots.clock_job_id("x", 1, attempt=2)
    assert bots.clock_job_id("x", 1, attempt=2) != bots.clock_job_id("x-1", 2, attempt=0)
    assert bots.clock_job_id("x", 1) == "clock-x-1"
