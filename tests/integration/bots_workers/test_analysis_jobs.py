"""Decision analyses served: POST /games/{id}/analysis queues one on the analysis queue, a real RQ
worker on that queue runs it, GET reads its progress and then the result, which is the offline
engine's for the same export and seed (service/docs/ANALYSIS.md, "Asking the server")."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest

from service.analysis import analyse_log, read_export, to_json
from service.app import create_app
from service.composition import make_bot_scheduler
from service.config import Settings
from service.games.analysis import analysis_job_id
from service.store.analyses import RedisAnalyses
from support.apiclient import ValidatingClient, load_openapi
from support.gameplay import create_game, parse_sse
from support.randomplay import choose_move
from workers import jobs
from workers.runner import build_context, parse_queues, run_worker, worker_queues

#: determinizations per decision: a one-hand game's analysis then takes a second or two
SAMPLES = 2
HERE, THERE, ELSEWHERE = "203.0.113.5", "203.0.113.6", "203.0.113.7"


@pytest.fixture
def settings(redis_url, key_prefix) -> Settings:
    return Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                    rate_limit_per_minute=1_000_000, analysis_samples=SAMPLES, analyses_per_caller=1,
                    analyses_queued=2, proxy_hops=1,
                    # a stream that reads the progress often enough to see even a fast analysis running
                    extra={"analysis_progress_every": 3, "analysis_stream_poll_s": 0.02})


@pytest.fixture
def api(settings) -> ValidatingClient:
    return ValidatingClient(create_app(settings, bot_scheduler=make_bot_scheduler(settings)), load_openapi())


def _queued(redis_conn, settings: Settings) -> list[str]:
    return [j.decode() if isinstance(j, bytes) else j
            for j in redis_conn.lrange(f"rq:queue:{settings.analysis_queue}", 0, -1)]


def _finished_game(api, seed: int) -> str:
    """A gin rami game to 1 point between two people playing random legal moves, played to its end."""
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], options={"target_score": 1})
    rng = random.Random(seed)
    for _ in range(3000):
        public = g.view(None)
        if public["status"] == "over":
            return g.game_id
        seat = public["to_act"][0]
        g.move(seat, choose_move(g.view(seat), rng))
    raise AssertionError("the game did not end")


def _positions(result: dict) -> int:
    """The decisions a result rates, as its progress counts them: a knock's arrangement counts with its knock."""
    return sum(1 for d in result["decisions"] if d["kind"] != "arrangement")


def _post(api, game_id: str, addr: str = HERE):
    # the caller's address as one trusted proxy tells it (GINBOX_PROXY_HOPS=1)
    return api.post(f"/games/{game_id}/analysis", headers={"X-Forwarded-For": addr})


def _offline(api, game_id: str) -> dict:
    """The offline engine's result for the game's export, with the server's samples and seed 0."""
    export = api.get(f"/games/{game_id}/export").get_data(as_text=True)
    log, advice = read_export(export.splitlines())
    return json.loads(to_json(analyse_log(log, samples=SAMPLES, seed=0, advice=advice)))


def test_a_requested_analysis_is_run_by_an_analysis_worker_and_read_back_as_the_offline_result(
        api, settings, redis_conn):
    game_id = _finished_game(api, 1)
    first = _post(api, game_id)
    assert first.status_code == 202
    assert first.headers["Location"] == f"/games/{game_id}/analysis"
    assert first.get_json() == {"game_id": game_id, "analysis_version": 1, "status": "queued",
                                "progress": {"done": 0, "total": 0}}
    # asked again while queued: the same analysis, queued once
    again = _post(api, game_id)
    assert (again.status_code, again.get_json()["status"]) == (202, "queued")
    assert _queued(redis_conn, settings) == [analysis_job_id(game_id)]
    assert api.get(f"/games/{game_id}/analysis").get_json()["status"] == "queued"
    # a worker of the bots' queues leaves it alone
    assert run_worker(settings, burst=True, queues=parse_queues("turns,boards")) == 0
    assert _queued(redis_conn, settings) == [analysis_job_id(game_id)]
    assert run_worker(settings, burst=True, queues=parse_queues("analysis")) == 0
    got = api.get(f"/games/{game_id}/analysis")
    assert got.status_code == 200
    body = got.get_json()
    expected = _offline(api, game_id)
    assert body["status"] == "done"
    assert body["result"] == expected
    n = _positions(expected)
    assert n > 0 and body["progress"] == {"done": n, "total": n}
    # asked once more: the result, nothing queued
    done = _post(api, game_id)
    assert (done.status_code, done.get_json()["result"]) == (200, expected)
    assert _queued(redis_conn, settings) == []


def test_a_game_in_play_an_unknown_game_and_a_sealed_board_queue_nothing(api, settings, redis_conn):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    resp = _post(api, g.game_id)
    assert (resp.status_code, resp.get_json()["code"]) == (409, "game_not_over")
    assert api.get(f"/games/{g.game_id}/analysis").status_code == 409
    resp = _post(api, "AAAAAAAAAAAAAAAA")
    assert (resp.status_code, resp.get_json()["code"]) == (404, "game_not_found")
    assert _post(api, "no-such-game").status_code == 404
    match = api.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "basic"], "boards": 1})
    assert match.status_code == 201
    detail = api.get(f"/matches/{match.get_json()['match_id']}").get_json()
    board = detail["board_results"][0]["tables"][0]["game_id"]
    assert [t["analysis"] for t in detail["board_results"][0]["tables"]] == [None, None]
    resp = _post(api, board)
    assert (resp.status_code, resp.get_json()["code"]) == (403, "match_game_sealed")
    assert api.get(f"/games/{board}/analysis").get_json()["code"] == "match_game_sealed"
    assert _queued(redis_conn, settings) == []
    assert redis_conn.keys(f"{settings.key_prefix}:*analys*") == []


def test_a_finished_match_links_each_games_analysis(api, settings, redis_conn):
    made = api.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "random"], "boards": 1})
    match_id = made.get_json()["match_id"]
    for _ in range(20):
        detail = api.get(f"/matches/{match_id}").get_json()
        if detail["status"] == "over":
            break
        run_worker(settings, burst=True, queues=parse_queues("turns,boards"))
    assert detail["status"] == "over"
    tables = detail["board_results"][0]["tables"]
    assert [t["analysis"] for t in tables] == [f"/games/{t['game_id']}/analysis" for t in tables]
    resp = api.post(tables[1]["analysis"])
    assert (resp.status_code, resp.get_json()["status"]) == (202, "queued")
    assert _queued(redis_conn, settings) == [analysis_job_id(tables[1]["game_id"])]


def test_the_analysis_stream_reports_progress_live_and_ends_once_done(api, settings):
    game_id = _finished_game(api, 6)
    assert _post(api, game_id).status_code == 202
    streamed: list = []

    def read():
        resp = api.get(f"/games/{game_id}/analysis/stream")  # validated message by message
        streamed.extend(parse_sse(resp.get_data(as_text=True)))

    reader = threading.Thread(target=read)
    reader.start()
    time.sleep(1.0)  # the stream has begun: it sent "queued"
    assert run_worker(settings, burst=True, queues=parse_queues("analysis")) == 0
    reader.join(timeout=60)
    assert not reader.is_alive(), "the stream did not end once the analysis was done"
    messages = [json.loads(e.data) for e in streamed]
    assert [e.event for e in streamed] == ["analysis_progress"] * len(messages)
    assert {m["type"] for m in messages} == {"analysis_progress"}
    statuses = [m["status"] for m in messages]
    assert statuses[0] == "queued" and statuses[-1] == "done" and "running" in statuses, statuses
    assert statuses == sorted(statuses, key=["queued", "running", "done"].index)
    done = [m["progress"]["done"] for m in messages]
    assert done == sorted(done)
    n = _positions(api.get(f"/games/{game_id}/analysis").get_json()["result"])
    assert messages[-1]["progress"] == {"done": n, "total": n}
    # once done, a new stream says so at once and ends
    again = [json.loads(e.data) for e in parse_sse(api.get(f"/games/{game_id}/analysis/stream").get_data(as_text=True))]
    assert [m["status"] for m in again] == ["done"]


def test_a_stream_of_no_analysis_is_refused_before_it_begins(api):
    game_id = _finished_game(api, 7)
    resp = api.get(f"/games/{game_id}/analysis/stream")
    assert (resp.status_code, resp.get_json()["code"]) == (404, "analysis_not_found")
    playing = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    resp = api.get(f"/games/{playing.game_id}/analysis/stream")
    assert (resp.status_code, resp.get_json()["code"]) == (409, "game_not_over")


def test_a_finished_game_nobody_asked_about_has_no_analysis(api):
    game_id = _finished_game(api, 2)
    resp = api.get(f"/games/{game_id}/analysis")
    assert (resp.status_code, resp.get_json()["code"]) == (404, "analysis_not_found")


def test_the_caps_per_caller_and_server_wide_refuse_with_429_and_queue_nothing(api, settings, redis_conn):
    games = [_finished_game(api, seed) for seed in (3, 4, 5)]
    assert _post(api, games[0], HERE).status_code == 202
    refused = _post(api, games[1], HERE)
    assert (refused.status_code, refused.get_json()["code"]) == (429, "too_many_analyses")
    assert int(refused.headers["Retry-After"]) > 0
    assert _post(api, games[1], THERE).status_code == 202
    refused = _post(api, games[2], ELSEWHERE)  # the server's cap of 2
    assert (refused.status_code, refused.get_json()["code"]) == (429, "too_many_analyses")
    assert sorted(_queued(redis_conn, settings)) == sorted(analysis_job_id(g) for g in games[:2])
    assert api.get(f"/games/{games[2]}/analysis").status_code == 404
    # once they are done, the places are free again
    assert run_worker(settings, burst=True, queues=("analysis",)) == 0
    assert _post(api, games[2], HERE).status_code == 202


class _Watched(RedisAnalyses):
    """The records on Redis, remembering each progress the job wrote."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.seen: list[tuple[int, int]] = []

    def progress(self, game_id, done, total):
        self.seen.append((done, total))
        return super().progress(game_id, done, total)


def test_a_job_killed_midway_runs_again_from_scratch_and_a_result_is_written_once(api, settings, redis_conn):
    game_id = _finished_game(api, 6)
    assert _post(api, game_id).status_code == 202
    ctx = build_context(settings)
    watched = _Watched(redis_conn, settings.key_prefix)
    ctx.analyses.records = watched
    # as a worker killed mid-way leaves it: running, part done
    watched.progress(game_id, 4, 99)
    watched.seen.clear()
    assert api.get(f"/games/{game_id}/analysis").get_json()["progress"] == {"done": 4, "total": 99}
    jobs.set_context(ctx)
    try:
        assert jobs.analyse_game(game_id) == "done"
        result = api.get(f"/games/{game_id}/analysis").get_json()
        n = _positions(result["result"])
        # from scratch, its progress written every 3 decisions (and the first and last)
        expected = [(0, 0)] + [(d, n) for d in range(1, n + 1) if d == 1 or d % 3 == 0 or d == n]
        assert watched.seen == expected
        key = f"{settings.key_prefix}:{{{game_id}}}:analysis:v1"
        stored = redis_conn.hget(key, "result")
        # run again (a retry, a duplicate job): the result stands, unwritten
        assert jobs.analyse_game(game_id) == "done_already"
        assert redis_conn.hget(key, "result") == stored
    finally:
        jobs.set_context(None)
    assert result["result"] == _offline(api, game_id)


def test_the_analysis_queue_is_a_worker_kind_of_its_own_and_serve_starts_a_worker_for_it(settings):
    from argparse import Namespace

    from service.cli import serve_workers

    assert parse_queues("analysis") == ("analysis",)
    assert parse_queues("analysis,turns") == ("turns", "analysis")
    assert parse_queues("turns,boards") == ("turns", "boards")
    ctx = build_context(settings)
    assert [q.name for q in worker_queues(ctx, ("turns", "boards", "analysis"))] == [
        f"{settings.key_prefix}-bots", f"{settings.key_prefix}-bots-boards", f"{settings.key_prefix}-bots-analysis"]
    started = serve_workers(Namespace(workers_turns=1, workers_bots=1, workers_analysis=1))
    assert ("analysis worker", ["worker", "--queues", "analysis"]) in started
    assert all("analysis" not in argv[-1] for name, argv in started if name != "analysis worker")


def test_a_worker_killed_midway_leaves_a_running_analysis_that_a_request_queues_again_from_scratch(
        redis_url, key_prefix, redis_conn, tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    from support.servers import REPO, service_env

    samples = 8  # a few seconds of a worker: time to kill it mid-way
    settings = Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                        rate_limit_per_minute=1_000_000, analysis_samples=samples,
                        extra={"analysis_stale_s": 1.0})
    api = ValidatingClient(create_app(settings, bot_scheduler=make_bot_scheduler(settings)), load_openapi())
    game_id = _finished_game(api, 7)
    assert api.post(f"/games/{game_id}/analysis").status_code == 202
    env = service_env(redis_url, key_prefix, GINBOX_ANALYSIS_SAMPLES=samples)
    with open(tmp_path / "worker.log", "wb") as out:
        worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker", "--queues", "analysis"], cwd=REPO,
                                  env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            got = api.get(f"/games/{game_id}/analysis").get_json()
            if got["status"] == "running" and got["progress"]["done"] >= 1:
                break
            assert got["status"] != "done", "the analysis ended before its worker was killed"
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()
            time.sleep(0.05)
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(10)
    left = api.get(f"/games/{game_id}/analysis").get_json()
    # running, its result not written (its processes may have rated every decision before the kill)
    assert left["status"] == "running" and 1 <= left["progress"]["done"] <= left["progress"]["total"]
    time.sleep(1.1)  # no progress for analysis_stale_s
    again = api.post(f"/games/{game_id}/analysis")
    assert again.status_code == 202
    assert _queued(redis_conn, settings) == [analysis_job_id(game_id)]
    assert run_worker(settings, burst=True, queues=("analysis",)) == 0
    done = api.get(f"/games/{game_id}/analysis").get_json()
    assert done["status"] == "done"
    export = api.get(f"/games/{game_id}/export").get_data(as_text=True)
    log, advice = read_export(export.splitlines())
    assert done["result"] == json.loads(to_json(analyse_log(log, samples=samples, seed=0, advice=advice)))
