"""Bot jobs and their scheduling on a real Redis and a real RQ queue, run in this process.

No worker consumes the queue here: each test looks at the queue and runs the jobs itself, so it
can run one twice, run a stale one, or lose one on purpose.
"""

from __future__ import annotations

import random
import time

import pytest

from service.rules.events import TurnTimedOut
from rq.job import Job

from service import bots
from service.config import Settings
from service.rules import game as G
from service.rules import views
from service.rules.events import GameCreated
from workers import jobs
from workers.policies import basic_move, read
from service.bots import promote_scheduled
from workers.sweeper import stalled_games
from support.job_context import ctx  # noqa: F401 (fixture)


@pytest.fixture
def settings(redis_url, key_prefix) -> Settings:
    return Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots", bot_stall_s=2.0)


def new_game(ctx, seats: list, variant: str = "gin-rami", **extra) -> str:
    body = {"variant": variant, "seats": seats, **extra}
    return ctx.games.create_game(body)["game_id"]


def queued_ids(ctx) -> list[str]:
    """The jobs waiting on the turn queue, then on the board queue (where the turns of a game of
    built-in bots alone go)."""
    ids = ctx.queue.get_job_ids() + ctx.board_queue.get_job_ids()
    return [j.decode() if isinstance(j, bytes) else j for j in ids]


def waiting(ctx) -> dict[str, float]:
    raw = ctx.queue.connection.zrange(bots.awaiting_key(ctx.settings.key_prefix), 0, -1, withscores=True)
    return {(g.decode() if isinstance(g, bytes) else g): s for g, s in raw}


def test_a_bot_to_move_gets_exactly_one_job_named_after_the_game_and_version(ctx):
    game_id = new_game(ctx, [{"bot": "basic"}, {"bot": "basic"}])
    state = ctx.repository.load_state(game_id)
    assert queued_ids(ctx) == [bots.bot_job_id(game_id, state.version)]
    # the hook called again for the same state (say, by a retrying caller) adds nothing
    ctx.games.after_append(game_id, state)
    ctx.games.after_append(game_id, state)
    assert queued_ids(ctx) == [bots.bot_job_id(game_id, state.version)]
    job = Job.fetch(queued_ids(ctx)[0], connection=ctx.queue.connection, serializer=ctx.queue.serializer)
    assert job.func_name == "workers.jobs.play_bot_turn" and job.args == [game_id, state.version]
    assert job.timeout == bots.JOB_TIMEOUT_S and job.retries_left == len(bots.RETRY_INTERVALS)
    assert game_id in waiting(ctx)


def test_a_job_run_twice_moves_once(ctx):
    game_id = new_game(ctx, [{"bot": "basic"}, {"bot": "random"}])
    v = ctx.repository.load_state(game_id).version
    assert jobs.play_bot_turn(game_id, v) == "moved"
    after_first = ctx.store.version(game_id)
    assert after_first > v
    assert jobs.play_bot_turn(game_id, v) == "moved_on"
    assert ctx.store.version(game_id) == after_first
    # the first run scheduled the next turn, and only that one
    assert queued_ids(ctx)[-1] == bots.bot_job_id(game_id, after_first)


def test_the_move_is_the_seats_policy_applied_to_the_seats_own_view(ctx):
    game_id = new_game(ctx, [{"bot": "basic"}, {"bot": "basic"}])
    state = ctx.repository.load_state(game_id)
    seat = state.to_act[0]
    expected = G.decide(state, seat, basic_move(read(views.view_state(state, seat))))
    jobs.play_bot_turn(game_id, state.version)
    got = [r.event for r in ctx.store.load(game_id, after=state.version)]
    assert got == expected


def test_a_human_turn_is_not_played_by_the_bot_job_and_leaves_the_waiting_set(ctx):
    created = ctx.games.create_game({"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}],
                                     "first_dealer": 1})
    game_id = created["game_id"]
    state = ctx.repository.load_state(game_id)
    assert state.to_act == (0,)  # the human non-dealer is offered the upcard
    assert queued_ids(ctx) == [] and game_id not in waiting(ctx)
    assert jobs.play_bot_turn(game_id, state.version) == "no_bot_to_act"
    assert ctx.store.version(game_id) == state.version


def test_the_sweeper_enqueues_again_the_turn_of_a_game_whose_job_was_lost(ctx):
    game_id = new_game(ctx, [{"bot": "basic"}, {"bot": "basic"}])
    v = ctx.repository.load_state(game_id).version
    job_id = bots.bot_job_id(game_id, v)
    # the job is lost (a Redis restart without the queue, a worker killed mid-job ...)
    Job.fetch(job_id, connection=ctx.queue.connection, serializer=ctx.queue.serializer).delete()
    assert queued_ids(ctx) == []
    since = waiting(ctx)[game_id]
    # not stalled yet: nothing happens
    assert stalled_games(ctx, now_ms=int(since) + 1000) == []
    # stalled (bot_stall_s = 2 s): enqueued again, once, and the wait starts over
    assert stalled_games(ctx, now_ms=int(since) + 2500) == [game_id]
    assert queued_ids(ctx) == [job_id]
    assert waiting(ctx)[game_id] == int(since) + 2500
    assert stalled_games(ctx, now_ms=int(since) + 3000) == []
    assert jobs.play_bot_turn(game_id, v) == "moved"


def test_the_sweeper_leaves_a_job_that_is_still_queued(ctx):
    game_id = new_game(ctx, [{"bot": "basic"}, {"bot": "basic"}])
    since = waiting(ctx)[game_id]
    assert stalled_games(ctx, now_ms=int(since) + 10_000) == []
    assert len(queued_ids(ctx)) == 1


def test_the_index_scan_finds_a_playing_game_whose_bot_was_never_scheduled(ctx):
    game_id = new_game(ctx, [{"bot": "basic"}, {"bot": "basic"}])
    # as if the process that appended died before scheduling: no job, not in the waiting set
    ctx.queue.empty()
    ctx.board_queue.empty()
    ctx.queue.connection.zrem(bots.awaiting_key(ctx.settings.key_prefix), game_id)
    assert stalled_games(ctx) == []
    assert stalled_games(ctx, scan_index=True) == [game_id]
    assert len(queued_ids(ctx)) == 1


def test_a_bot_advisor_advises_its_captain_once_then_the_bot_captain_plays_at_the_same_version(ctx):
    game_id = new_game(ctx, [{"bot": "basic"}, {"bot": "basic"}, {"bot": "basic"}], variant="three-hand",
                       roles={"box": 0, "captain": 1, "advisor": 2})
    v = ctx.repository.load_state(game_id).version
    # one job: the advice (which moves no version), then the captain's move at version v
    assert jobs.play_bot_turn(game_id, v) == "moved"
    given = ctx.games.advice.read(game_id)
    assert [(a.version, a.seq, a.entry["advisor"], a.entry["captain"]) for a in given] == [(v, 0, 2, 1)]
    moved = ctx.store.load(game_id, after=v)
    assert moved[0].version == v + 1 and moved[0].event.seat == 1  # the captain
    assert all(r.event.TYPE != "advice_given" for r in ctx.store.load(game_id))
    # the job run again for v finds the game moved on
    assert jobs.play_bot_turn(game_id, v) == "moved_on"


def test_a_human_captain_gets_advice_from_a_bot_advisor_once_and_then_the_game_waits_for_them(ctx):
    created = ctx.games.create_game({"variant": "three-hand", "seats": [{"bot": "basic"}, {"name": "ann"},
                                     {"bot": "expert"}], "roles": {"box": 0, "captain": 1, "advisor": 2}})
    game_id = created["game_id"]
    v = ctx.repository.load_state(game_id).version
    assert jobs.play_bot_turn(game_id, v) == "advised"
    assert ctx.repository.load_state(game_id).version == v  # advice moves no version
    assert game_id not in waiting(ctx)
    # once per decision: the same job again (a retry, the sweeper) gives no second piece
    assert jobs.play_bot_turn(game_id, v) == "no_bot_to_act"
    assert len(ctx.games.advice.read(game_id)) == 1
    ann_view = ctx.games.view(game_id, 1).view
    assert len(ann_view["advice"]) == 1 and ann_view["advice"][0]["advisor"] == 2
    assert ann_view["advice"][0]["version"] == v
    assert ctx.games.view(game_id, 0).view["advice"] == []  # the box sees none


def test_a_timed_out_human_turn_is_played_with_the_basic_policy(ctx):
    created = ctx.games.create_game({"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}],
                                     "first_dealer": 1})
    game_id = created["game_id"]
    state = ctx.repository.load_state(game_id)
    # the log says the clock played: a TurnTimedOut marker, then the basic policy's move
    expected = [TurnTimedOut(0, state.hand_no)] + G.decide(state, 0, basic_move(read(views.view_state(state, 0))))
    assert jobs.play_timed_out_turn(game_id, state.version) == "auto_played"
    assert [r.event for r in ctx.store.load(game_id, after=state.version)][: len(expected)] == expected
    # the store keeps the clock's key with the version its move produced
    assert ctx.store.idempotent_result(game_id, f"clock-{state.version}")[1] == state.version + len(expected)
    # a clock for a version the game has left does nothing
    now = ctx.store.version(game_id)
    assert jobs.play_timed_out_turn(game_id, state.version) == "moved_on"
    assert ctx.store.version(game_id) == now


def test_a_turn_timeout_option_schedules_one_clock_per_human_turn(ctx):
    """A state carrying turn_timeout_s (built by evolve, which does not validate options) gets a clock."""
    events = G.start(G.GameSpec(variant="gin-rami", players=[{"name": "ann"}, {"bot": "basic", "name": "b"}],
                                seed=b"clock", first_dealer=1))
    created = events[0]
    options = {**created.options, "turn_timeout_s": 30}
    events[0] = GameCreated(**{**created.__dict__, "options": options})
    state = G.replay(events)
    assert state.to_act == (0,)
    assert bots.schedule_bots(ctx.queue, "g-clock", state, key_prefix=ctx.settings.key_prefix) is False
    assert bots.schedule_bots(ctx.queue, "g-clock", state, key_prefix=ctx.settings.key_prefix) is False
    registry = ctx.queue.scheduled_job_registry
    assert registry.get_job_ids() == [bots.clock_job_id("g-clock", state.version)]
    # not due yet: the sweeper's release leaves it scheduled
    assert promote_scheduled(ctx.queue) == 0
    job = Job.fetch(bots.clock_job_id("g-clock", state.version), connection=ctx.queue.connection,
                    serializer=ctx.queue.serializer)
    assert job.func_name == "workers.jobs.play_timed_out_turn" and job.args == ["g-clock", state.version]
    # once due, the sweeper thread's release puts it on the queue, once
    # (a clock due a second ago: a due time is kept as the whole second at or after it)
    due_ms = int(time.time() * 1000) - 1000
    assert bots.enqueue_turn_clock(ctx.queue, "g-soon", state.version, 30, due_ms=due_ms) is True
    assert promote_scheduled(ctx.queue) == 1
    assert promote_scheduled(ctx.queue) == 0
    assert queued_ids(ctx) == [bots.clock_job_id("g-soon", state.version)]


def test_the_jobs_move_is_reproducible_for_a_given_game_and_version(ctx):
    """The random policy draws from a generator seeded by (game, version, seat): two runs agree."""
    game_id = new_game(ctx, [{"bot": "random"}, {"bot": "random"}])
    state = ctx.repository.load_state(game_id)
    seat = state.to_act[0]
    policy = jobs.policy_for(state.players[seat])
    loaded = jobs.load_at(ctx, game_id, state.version)
    assert loaded.state == state
    a = jobs.choose(loaded, game_id, seat, policy)
    b = jobs.choose(jobs.load_at(ctx, game_id, state.version), game_id, seat, policy)
    assert a == b
    rng = random.Random(f"{game_id}:{state.version}:{seat}")
    assert a == policy.choose(views.view_state(state, seat), rng)


def test_a_policy_that_fails_or_proposes_an_illegal_move_does_not_stall_the_game(ctx, monkeypatch):
    game_id = new_game(ctx, [{"bot": "basic"}, {"bot": "basic"}])
    state = ctx.repository.load_state(game_id)
    seat = state.to_act[0]

    class Broken:
        name = "broken"

        def choose(self, view, rng, events=None):
            raise RuntimeError("a bug")

    class Cheat:
        name = "cheat"

        def choose(self, view, rng, events=None):
            from service.rules.commands import Discard

            return Discard("AS")  # in the upcard phase: wrong_phase, and maybe not even held

    expected = G.decide(state, seat, basic_move(read(views.view_state(state, seat))))
    for broken in (Broken(), Cheat()):
        monkeypatch.setattr(jobs, "policy_for", lambda player, settings=None, p=broken: p)
        v = ctx.store.version(game_id)
        assert jobs.play_bot_turn(game_id, v) == "moved"
        if isinstance(broken, Broken):
            assert [r.event for r in ctx.store.load(game_id, after=v)] == expected
        assert ctx.store.version(game_id) > v


def test_the_expert_thinks_for_the_seats_budget_else_the_workers_default(ctx):
    game_id = new_game(ctx, [{"bot": "expert", "budget_ms": 750}, {"bot": "expert"}])
    players = ctx.repository.load_state(game_id).players
    assert players[0]["budget_ms"] == 750 and "budget_ms" not in players[1]
    assert jobs.policy_for(players[0], ctx.settings).params.budget_s == 0.75
    assert jobs.policy_for(players[1], ctx.settings).params.budget_s == ctx.settings.bot_budget_ms / 1000
    other = Settings(**{**ctx.settings.__dict__, "bot_budget_ms": 40})
    assert jobs.policy_for(players[1], other).params.budget_s == 0.04
