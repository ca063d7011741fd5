"""GET /metrics: request, move, conflict and bot-turn counters, and the queue read from Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from rq import Queue
from rq.serializers import JSONSerializer

from service.app import create_app
from service.bots import awaiting_key
from service.config import Settings
from service.metrics import bot_turn, init_metrics, observe_bot_turn
from service.redis_process import RedisServerProcess
from support.apiclient import ValidatingClient

REPO = Path(__file__).resolve().parents[3]


def samples(text: str) -> dict[tuple, float]:
    """{(sample name, sorted labels): value} of an exposition text."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(text: str, name: str, **labels) -> float:
    return samples(text).get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def settings(redis_url, key_prefix) -> Settings:
    return Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                    rate_limit_per_minute=1_000_000)


@pytest.fixture
def client(settings):
    app = create_app(settings)
    init_metrics(app)
    init_metrics(app)  # a second call changes nothing (the app factory may call it too)
    return ValidatingClient(app)


def scrape(client) -> str:
    resp = client.get("/metrics")
    assert resp.status_code == 200
    assert resp.mimetype == "text/plain" and "version=" in resp.headers["Content-Type"]
    return resp.get_data(as_text=True)


def new_game(client) -> tuple[str, dict[int, str], dict]:
    resp = client.post("/games", json={"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    body = resp.get_json()
    tokens = {s["seat"]: s["token"] for s in body["seats"]}
    return body["game_id"], tokens, body["view"]


def test_moves_conflicts_and_requests_are_counted_by_route_template(client):
    game_id, tokens, view = new_game(client)
    seat = view["to_act"][0]
    other = 1 - seat
    before = scrape(client)
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    mover_view = client.get(f"/games/{game_id}", headers=auth).get_json()
    move = mover_view["legal_moves"][0]

    # the other seat tries to move: a rules conflict (409 not_your_turn)
    resp = client.post(f"/games/{game_id}/moves", json=move, headers={"Authorization": f"Bearer {tokens[other]}"})
    assert resp.status_code == 409 and resp.get_json()["code"] == "not_your_turn"
    # a stale If-Match: 412 version_mismatch
    resp = client.post(f"/games/{game_id}/moves", json=move, headers={**auth, "If-Match": '"999"'})
    assert resp.status_code == 412
    # the move itself
    resp = client.post(f"/games/{game_id}/moves", json=move, headers=auth)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    after = scrape(client)

    route = "/games/<game_id>/moves"
    assert value(after, "ginbox_moves_total") - value(before, "ginbox_moves_total") == 1
    assert value(after, "ginbox_conflicts_total", code="not_your_turn") - value(before, "ginbox_conflicts_total", code="not_your_turn") == 1
    assert value(after, "ginbox_conflicts_total", code="version_mismatch") - value(before, "ginbox_conflicts_total", code="version_mismatch") == 1
    for status in ("200", "409", "412"):
        got = value(after, "ginbox_http_requests_total", method="POST", route=route, status=status)
        assert got - value(before, "ginbox_http_requests_total", method="POST", route=route, status=status) == 1
    # three POSTs timed on the route template; the raw path (with the id) names no series
    timed = value(after, "ginbox_http_request_duration_seconds_count", method="POST", route=route)
    assert timed - value(before, "ginbox_http_request_duration_seconds_count", method="POST", route=route) == 3
    assert game_id not in after


def test_a_path_no_route_matches_is_counted_under_one_label(client):
    before = scrape(client)
    for i in range(3):
        assert client.get(f"/no/such/path/{i}").status_code == 404
    after = scrape(client)
    labels = dict(method="GET", route="<unmatched>", status="404")
    assert value(after, "ginbox_http_requests_total", **labels) - value(before, "ginbox_http_requests_total", **labels) == 3
    assert "/no/such/path" not in after


def test_the_queue_length_and_games_waiting_on_a_bot_are_read_from_redis(client, settings, redis_conn):
    queue = Queue(settings.queue_name, connection=redis_conn, serializer=JSONSerializer)
    boards = Queue(settings.board_queue, connection=redis_conn, serializer=JSONSerializer)
    text = scrape(client)
    assert value(text, "ginbox_redis_up") == 1
    assert value(text, "ginbox_bot_queue_length", queue="turns") == 0
    assert value(text, "ginbox_bot_queue_length", queue="boards") == 0
    # two turn jobs and one board game nobody runs (no worker listens on this test's queues), and
    # one waiting game
    queue.enqueue("workers.jobs.play_bot_turn", "g1", 3, job_id=f"{settings.key_prefix}-a")
    queue.enqueue("workers.jobs.play_bot_turn", "g2", 5, job_id=f"{settings.key_prefix}-b")
    boards.enqueue("workers.arena_jobs.play_board_game", "g3", 1, job_id=f"{settings.key_prefix}-c")
    redis_conn.zadd(awaiting_key(settings.key_prefix), {"g1": 1})
    try:
        text = scrape(client)
        assert value(text, "ginbox_bot_queue_length", queue="turns") == 2
        assert value(text, "ginbox_bot_queue_length", queue="boards") == 1
        assert value(text, "ginbox_games_waiting_on_bot") == 1
        assert value(text, "ginbox_bot_jobs_running", queue="turns") == 0
        assert value(text, "ginbox_bot_jobs_scheduled", queue="boards") == 0
    finally:
        queue.empty()
        boards.empty()


def test_metrics_still_answer_when_redis_is_down_and_say_so(tmp_path, key_prefix):
    server = RedisServerProcess(tmp_path / "redis").start()
    try:
        app = create_app(Settings(redis_url=server.url, key_prefix=key_prefix, redis_timeout_s=0.5))
        init_metrics(app)
        client = ValidatingClient(app)
        assert value(scrape(client), "ginbox_redis_up") == 1
        server.kill()
        assert value(scrape(client), "ginbox_redis_up") == 0
    finally:
        server.kill()


def test_bot_turns_are_counted_with_their_outcome_and_duration(client):
    before = scrape(client)
    with bot_turn("move") as turn:
        turn["outcome"] = "moved"
    with pytest.raises(RuntimeError):
        with bot_turn("advice"):
            raise RuntimeError("the policy failed")
    observe_bot_turn("clock", "auto_played", 0.02)
    after = scrape(client)

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("ginbox_bot_turns_total", kind="move", outcome="moved") == 1
    assert delta("ginbox_bot_turns_total", kind="advice", outcome="error") == 1
    assert delta("ginbox_bot_turns_total", kind="clock", outcome="auto_played") == 1
    assert delta("ginbox_bot_turn_duration_seconds_count", kind="clock") == 1
    # 0.02 s falls in the 0.025 bucket and not in the 0.01 one
    assert delta("ginbox_bot_turn_duration_seconds_bucket", kind="clock", le="0.025") == 1
    assert delta("ginbox_bot_turn_duration_seconds_bucket", kind="clock", le="0.01") == 0


def test_in_multiprocess_mode_the_counts_of_every_process_are_added_up(tmp_path):
    """Two 'worker' processes count bot turns; a third process's /metrics shows their sum."""
    env = dict(os.environ, PROMETHEUS_MULTIPROC_DIR=str(tmp_path))
    worker = "from service.metrics import observe_bot_turn\nfor _ in range({n}): observe_bot_turn('move', 'moved', 0.05)"
    for n in (2, 3):
        subprocess.run([sys.executable, "-c", worker.format(n=n)], cwd=REPO, env=env, check=True, timeout=60)
    api = textwrap.dedent("""
        from flask import Flask
        from service.metrics import init_metrics
        app = Flask(__name__)
        init_metrics(app)
        print(app.test_client().get("/metrics").get_data(as_text=True))
    """)
    out = subprocess.run([sys.executable, "-c", api], cwd=REPO, env=env, check=True, timeout=60,
                         capture_output=True, text=True).stdout
    assert value(out, "ginbox_bot_turns_total", kind="move", outcome="moved") == 5
    assert value(out, "ginbox_bot_turn_duration_seconds_count", kind="move") == 5


@pytest.mark.slow
def test_under_gunicorn_with_two_workers_metrics_count_the_requests_of_both(tmp_path, redis_url, key_prefix):
    """Multiprocess mode end to end: gunicorn loads service.metrics as its config (child_exit hook).

    Each worker process is replaced after about 10 requests (--max-requests; a gevent worker
    looks at its count once a second). Requests go on until two workers have been replaced, so
    that processes gone by the time of the scrape answered at least 20 of them: only counts
    added up over every process (live or not) give the total.
    """
    from support.servers import ApiServer, HttpClient, service_env

    prom_dir = tmp_path / "prom"
    prom_dir.mkdir()
    env = service_env(redis_url, key_prefix, PROMETHEUS_MULTIPROC_DIR=prom_dir, GINBOX_RATE_LIMIT=10**9)
    api = ApiServer(env, tmp_path / "gunicorn.log", workers=2, threads=2,
                    extra_args=["--config", "python:service.metrics", "--max-requests", "10"]).start()
    try:
        n = 0
        deadline = time.monotonic() + 60
        while api.booted_workers() < 4:  # two first workers, then two replacements
            assert time.monotonic() < deadline, "no worker was replaced after --max-requests"
            http = HttpClient("127.0.0.1", api.port, timeout=30)  # a new connection each: both workers serve
            assert http.call("GET", f"/games/nosuchgame{n:07d}").status == 404
            http.close()
            n += 1
            time.sleep(0.02)
        text = HttpClient("127.0.0.1", api.port, timeout=30).call("GET", "/metrics").raw.decode()
    finally:
        api.stop()
    assert n >= 20
    assert value(text, "ginbox_http_requests_total", method="GET", route="/games/<game_id>", status="404") == n
    # each process that counted wrote its own file, the replaced ones included
    pids = {p.stem.rsplit("_", 1)[-1] for p in prom_dir.glob("counter_*.db")}
    assert len(pids) >= 3, pids
