"""``ginbox_bot_jobs_running`` counts only the jobs a live worker is running: a board game's job
whose worker was killed stays "started" in RQ's registry for minutes (a plain RQ worker sends no
heartbeat during a job), but with no worker alive the gauge reads 0 once the dead worker's last
heartbeat is old (service.bot_metrics.WORKER_ALIVE_S)."""

from __future__ import annotations

import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.bot_metrics import live_workers_key
from service.metrics import init_metrics
from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)
from support import waiting
from support.freezing import frozen_when

DEADLINE_S = 120


def running(client, queue: str) -> float:
    resp = client.get("/metrics")
    assert resp.status_code == 200
    for family in text_string_to_metric_families(resp.get_data(as_text=True)):
        for s in family.samples:
            if s.name == "ginbox_bot_jobs_running" and s.labels == {"queue": queue}:
                return s.value
    raise AssertionError("no ginbox_bot_jobs_running sample")


def wait_for(pred, what: str):
    return waiting.wait_for(pred, what, DEADLINE_S, every_s=0.2)


@pytest.mark.slow
def test_a_job_whose_worker_died_is_not_counted_as_running_while_no_worker_is_alive(
        app, client, settings, workers, redis_conn):
    init_metrics(app)
    # several boards, so that the worker is still in the middle of one board game or another when killed
    match = client.post("/matches", json={"variant": "gin-rami", "participants": ["expert", "expert"], "boards": 4})
    assert match.status_code == 201, match.get_data(as_text=True)
    games = [t["game_id"] for b in match.get_json()["board_results"] for t in b["tables"]]
    store = app.extensions["ginbox"].store
    start = {g: store.version(g) for g in games}
    worker = workers.start()
    wait_for(lambda: running(client, "boards") == 1, "a board game's job counted as running")
    # killed inside a job: frozen first (SIGSTOP), and seen running one while frozen
    frozen_when(worker.proc, lambda: any(store.version(g) >= start[g] + 3 for g in games),
                lambda: running(client, "boards") == 1, DEADLINE_S)
    workers.kill9(worker)

    # RQ still holds the job as started, well into the future: nothing of RQ's says its worker is gone
    assert redis_conn.zcount(f"rq:wip:{settings.board_queue}", int(time.time()) + 60, "+inf") == 1
    # no worker is alive: once the dead one's last heartbeat is old, nothing is running
    wait_for(lambda: running(client, "boards") == 0, "no board job counted as running")
    assert running(client, "turns") == 0
    assert redis_conn.zcount(f"rq:wip:{settings.board_queue}", int(time.time()), "+inf") == 1
    # the dead worker's name is still in the set: it is its age that rules it out
    assert redis_conn.zcard(live_workers_key(settings.key_prefix)) == 1


@pytest.mark.slow
def test_a_worker_that_stops_is_no_longer_alive_at_once(app, client, settings, workers, redis_conn):
    worker = workers.start()
    key = live_workers_key(settings.key_prefix)
    name = wait_for(lambda: redis_conn.zrange(key, 0, -1), "the worker's heartbeat")[0].decode()
    # taking jobs (RQ handles SIGTERM from then on: before, the signal's default action ends the process)
    wait_for(lambda: redis_conn.hget(f"rq:worker:{name}", "state") == b"idle", "the worker taking jobs")
    worker.stop()
    assert redis_conn.zcard(key) == 0, worker.log_text()[-3000:]
