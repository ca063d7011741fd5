"""The sweeper's pass over board games whose wait on a bot is older than ``bot_stall_s``.

Four boards' games of experts are enqueued on the board queue at once, more than one worker plays
at a time: one is in play, the others wait behind it. Their waits began when they were enqueued,
so a game that waited its turn longer than ``bot_stall_s`` looks stalled when its job starts,
until that job's first move lands (an expert thinks for its budget first). Neither a job waiting
in the queue nor a job a live worker is running is lost: the sweep enqueues nothing for them.
A job whose worker was killed, or that left the queue without being started, is lost: the sweep
enqueues it again, once. Two board jobs of one game running at once play no move twice, and
breed no third.
"""

from __future__ import annotations

import logging
import time

import pytest
from rq.job import Job, JobStatus

from service import bots
from service.bots import board_job_id, enqueue_board_game
from service.bot_metrics import WORKER_ALIVE_S, live_workers_key
from support.arena_fixtures import app, arena_settings, client, worker_pool  # noqa: F401 (fixtures)
from support.job_context import ctx  # noqa: F401 (fixture)
from workers import sweeper
from support import waiting
from support.freezing import frozen_when, thaw

DEADLINE_S = 120
#: how long ago the waits are made to have begun: far more than bot_stall_s (2 s)
LONG_AGO_MS = 120_000


@pytest.fixture
def settings(redis_url, key_prefix):
    return arena_settings(redis_url, key_prefix, bot_budget_ms=2000)


@pytest.fixture
def workers(settings, tmp_path):
    """Workers whose experts think up to 2 s a move: a board game stays in play while the test looks."""
    pool = worker_pool(settings, tmp_path)
    pool.env["GINBOX_BOT_BUDGET_MS"] = str(settings.bot_budget_ms)
    yield pool
    pool.stop_all()


def wait_for(pred, what: str):
    return waiting.wait_for(pred, what, DEADLINE_S, every_s=0.05)


def text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


def start_match(client, boards: int = 2) -> list[str]:
    match = client.post("/matches", json={"variant": "gin-rami", "participants": ["expert", "expert"],
                                          "boards": boards})
    assert match.status_code == 201, match.get_data(as_text=True)
    return [t["game_id"] for b in match.get_json()["board_results"] for t in b["tables"]]


def frozen_in_a_job(worker, redis_conn, settings) -> str:
    """Stop the worker's process group while it runs a board job; that job's id."""
    in_play = lambda: job_in_play(redis_conn, settings)  # noqa: E731
    return frozen_when(worker.proc, in_play, in_play, DEADLINE_S)


def queued_ids(board_queue) -> list[str]:
    return [text(j) for j in board_queue.get_job_ids()]


def age_waits(redis_conn, settings, games, now_ms: int) -> None:
    """Every game's wait began long ago, as a game's does that waited behind others for its job."""
    redis_conn.zadd(bots.awaiting_key(settings.key_prefix), {g: now_ms - LONG_AGO_MS for g in games}, xx=True)


def job_in_play(redis_conn, settings) -> str:
    """The board job a live worker is running now ('' if none)."""
    live = redis_conn.zrange(live_workers_key(settings.key_prefix), 0, -1)
    for name in live:
        job_id = text(redis_conn.hget(f"rq:worker:{text(name)}", "current_job") or b"")
        if job_id.startswith("board-"):
            return job_id
    return ""


def game_of(job_id: str, games: list[str]) -> str:
    return next(g for g in games if job_id.startswith(board_job_id(g, 0)[:-1]))


@pytest.mark.slow
def test_board_jobs_waiting_behind_others_or_in_play_are_not_enqueued_again(
        app, client, settings, workers, redis_conn, ctx, caplog):
    games = start_match(client)
    board_queue = bots.bot_queue(redis_conn, settings.board_queue)
    assert len(queued_ids(board_queue)) == len(games)
    worker = workers.start()
    # the worker, frozen in the middle of a board job (SIGSTOP to its process group), leaves the
    # queue as it is while the test looks: a quick game cannot end and let it take the next job
    running = frozen_in_a_job(worker, redis_conn, settings)
    try:
        playing = game_of(running, games)
        waiting = [g for g in games if g != playing]
        before = queued_ids(board_queue)
        assert sorted(game_of(j, games) for j in before) == sorted(waiting)

        now = int(time.time() * 1000)
        age_waits(redis_conn, settings, games, now)
        with caplog.at_level(logging.WARNING, logger="service.bots.scheduler"):
            again = sweeper.stalled_games(ctx, now)
        assert again == [], caplog.text
        assert "enqueuing it again" not in caplog.text
        # the queue is as it was (none twice, none in front, none for the game in play), and the job
        # in play is still its worker's (not deleted to be enqueued anew)
        assert queued_ids(board_queue) == before
        job = Job.fetch(running, connection=redis_conn, serializer=board_queue.serializer)
        assert job.get_status() == JobStatus.STARTED
    finally:
        thaw(worker.proc)
    # the sweep measures each wait again from now: none is looked at before bot_stall_s passes
    scores = redis_conn.zmscore(bots.awaiting_key(settings.key_prefix), games)
    assert all(s is not None and s >= now for s in scores)


@pytest.mark.slow
def test_a_board_job_whose_worker_was_killed_is_enqueued_again_once_its_worker_reads_as_dead(
        app, client, settings, workers, redis_conn, ctx, caplog):
    games = start_match(client)
    board_queue = bots.bot_queue(redis_conn, settings.board_queue)
    worker = workers.start()
    running = wait_for(lambda: job_in_play(redis_conn, settings), "a worker to start a board job")
    playing = game_of(running, games)
    workers.kill9(worker)
    worker.proc.wait(30)
    before = queued_ids(board_queue)
    version = ctx.store.version(playing)

    # the killed worker's last heartbeat is older than WORKER_ALIVE_S: its job is lost
    later = int(time.time() * 1000) + int(WORKER_ALIVE_S * 1000) + 1000
    age_waits(redis_conn, settings, games, later)
    with caplog.at_level(logging.WARNING, logger="service.bots.scheduler"):
        again = sweeper.stalled_games(ctx, later)
    assert again == [playing]
    assert f"board game {playing} waited on its job at version {version}" in caplog.text
    after = queued_ids(board_queue)
    assert after == before + [board_job_id(playing, version)]
    # the lost run is no longer counted as started
    started = [text(e) for e in redis_conn.zrange(board_queue.started_job_registry.key, 0, -1)]
    assert not [e for e in started if e.startswith(board_job_id(playing, 0)[:-1])]


@pytest.mark.slow
def test_a_board_job_taken_off_its_queue_and_never_started_is_enqueued_again(
        app, client, settings, redis_conn, ctx, caplog):
    """No worker: every job waits in the queue, then one is taken off it as by a worker killed
    between taking a job and starting it."""
    games = start_match(client)
    board_queue = bots.bot_queue(redis_conn, settings.board_queue)
    before = queued_ids(board_queue)
    now = int(time.time() * 1000)
    age_waits(redis_conn, settings, games, now)
    assert sweeper.stalled_games(ctx, now) == []
    assert queued_ids(board_queue) == before

    taken = before[0]
    lost = game_of(taken, games)
    redis_conn.lrem(board_queue.key, 1, taken)
    age_waits(redis_conn, settings, games, now)
    with caplog.at_level(logging.WARNING, logger="service.bots.scheduler"):
        assert sweeper.stalled_games(ctx, now) == [lost]
    assert queued_ids(board_queue) == before[1:] + [taken]


@pytest.fixture
def quick_workers(settings, tmp_path):
    """Workers whose experts think up to 0.5 s a move: a board game lasts some seconds."""
    pool = worker_pool(settings, tmp_path)
    pool.env["GINBOX_BOT_BUDGET_MS"] = "500"
    yield pool
    pool.stop_all()


@pytest.mark.slow
def test_two_board_jobs_of_one_game_play_no_move_twice_and_do_not_breed_more(
        app, client, settings, quick_workers, redis_conn, ctx):
    """Should a game's board job be enqueued again while a worker plays it (a sweep that took it for
    lost), two workers run both at once: each version is won by one of them, and the one that loses a
    version leaves the game to the other instead of enqueuing a third job to race it again."""
    match = client.post("/matches", json={"variant": "gin-rami", "participants": ["expert", "expert"], "boards": 1})
    assert match.status_code == 201, match.get_data(as_text=True)
    match_id = match.get_json()["match_id"]
    games = [t["game_id"] for b in match.get_json()["board_results"] for t in b["tables"]]
    board_queue = bots.bot_queue(redis_conn, settings.board_queue)
    for _ in range(3):  # one for each of the board's two games, one free for the job enqueued again
        quick_workers.start()
    running = wait_for(lambda: job_in_play(redis_conn, settings), "a worker to start a board job")
    playing = game_of(running, games)
    version = ctx.store.version(playing)
    # what a sweep that takes the running job for lost does
    runs = board_job_id(playing, 0)[:-1]
    bots.forget_lost_runs(board_queue, runs)
    enqueue_board_game(board_queue, settings.key_prefix, playing, version, force=True)

    wait_for(lambda: client.get(f"/matches/{match_id}").get_json()["status"] == "over", "the match to end")
    # no move twice: one event per version, and the game ended as the rules end it
    records = ctx.store.load(playing)
    assert [r.version for r in records] == list(range(1, len(records) + 1))
    assert ctx.repository.load_state(playing).status == "over"
    # no job bred from the race: the game's board jobs are the one in play and the one enqueued again
    seen = {text(j) for key in (board_queue.key, board_queue.finished_job_registry.key,
                                board_queue.failed_job_registry.key, board_queue.started_job_registry.key)
            for j in (redis_conn.lrange(key, 0, -1) if key == board_queue.key else redis_conn.zrange(key, 0, -1))}
    assert {j.split(":", 1)[0] for j in seen if j.startswith(runs)} <= {running, board_job_id(playing, version)}
