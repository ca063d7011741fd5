"""The workers' metrics on the API's /metrics: bot turns counted by a real ``ginbox worker`` process.

The worker and the test's /metrics share a ``PROMETHEUS_MULTIPROC_DIR`` (one host), as under
``ginbox serve``: the worker writes its samples there and the scrape adds them up.
"""

from __future__ import annotations

import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.bot_metrics import WORKER_ALIVE_S, live_workers_key
from service.bots.chains import board_runs_key
from service.metrics import init_metrics
from support.arena_fixtures import app, client, settings, worker_pool  # noqa: F401 (fixtures)
from support import waiting
from support.freezing import frozen_when

#: the first event of each command's events: one per bot command (service/rules/deciders.py)
COMMAND_EVENTS = {"upcard_taken", "upcard_passed", "card_drawn", "card_discarded", "knocked"}
DEADLINE_S = 240


def value(text: str, name: str, **labels) -> float:
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and s.labels == labels:
                return s.value
    return 0.0


def names(text: str) -> set[str]:
    return {s.name for family in text_string_to_metric_families(text) for s in family.samples}


@pytest.fixture
def prom_dir(tmp_path, monkeypatch):
    """An empty multiprocess directory, also this test process's: its /metrics reads the worker's files."""
    path = tmp_path / "prom"
    path.mkdir()
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(path))
    return path


@pytest.fixture
def workers(settings, tmp_path, prom_dir):
    pool = worker_pool(settings, tmp_path)
    pool.env["PROMETHEUS_MULTIPROC_DIR"] = str(prom_dir)
    yield pool
    pool.stop_all()


def scrape(client) -> str:
    resp = client.get("/metrics")
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def commands_in(client, game_id: str) -> int:
    """How many commands the game's log holds (each played by a bot here)."""
    events = client.get(f"/games/{game_id}/events", query_string={"limit": 1000}).get_json()["events"]
    assert len(events) < 1000
    return sum(1 for e in events if e["type"] in COMMAND_EVENTS)


def wait_for(pred, what: str, explain=None):
    return waiting.wait_for(pred, what, DEADLINE_S, every_s=0.2, explain=explain)


@pytest.mark.slow
def test_a_worker_counts_each_bot_turn_it_plays_a_turn_jobs_and_a_board_games(app, client, workers):
    init_metrics(app)
    assert "ginbox_bot_turns_total" not in names(scrape(client))
    game = client.post("/games", json={"variant": "gin-rami", "options": {"target_score": 1},
                                       "seats": [{"bot": "basic"}, {"bot": "random"}]})
    assert game.status_code == 201, game.get_data(as_text=True)
    game_id = game.get_json()["game_id"]
    match = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "random"], "boards": 1})
    assert match.status_code == 201, match.get_data(as_text=True)
    match_id = match.get_json()["match_id"]
    workers.start()

    wait_for(lambda: client.get(f"/games/{game_id}").get_json()["status"] == "over", "the bots' game to end")
    final = wait_for(lambda: (m := client.get(f"/matches/{match_id}").get_json())["status"] == "over" and m,
                     "the match to end")
    board_games = [t["game_id"] for t in final["board_results"][0]["tables"]]
    assert len(board_games) == 2
    # the game's turns were turn jobs; the match's two games were each played whole by one board job
    expected = commands_in(client, game_id) + sum(commands_in(client, g) for g in board_games)
    assert expected >= 3 * 2  # at least a draw and a discard or knock per game

    # the last turn is counted just after its append: the scrape may come a moment before it
    text = wait_for(lambda: (t := scrape(client))
                    and value(t, "ginbox_bot_turns_total", kind="move", outcome="moved") >= expected and t,
                    "the worker's counts")
    assert value(text, "ginbox_bot_turns_total", kind="move", outcome="moved") == expected
    # every turn timed: those appended, and any that lost its race to a run of the same job
    lost = value(text, "ginbox_bot_turns_total", kind="move", outcome="moved_on")
    assert value(text, "ginbox_bot_turn_duration_seconds_count", kind="move") == expected + lost
    assert value(text, "ginbox_bot_turn_duration_seconds_bucket", kind="move", le="+Inf") == expected + lost
    assert value(text, "ginbox_bot_turns_total", kind="move", outcome="error") == 0
    # nobody advised and no clock ran
    assert value(text, "ginbox_bot_turn_duration_seconds_count", kind="advice") == 0
    assert value(text, "ginbox_bot_turn_duration_seconds_count", kind="clock") == 0


def test_a_started_job_past_the_time_rq_takes_it_for_abandoned_is_not_counted_as_running(app, client, settings,
                                                                                       redis_conn):
    """RQ scores a started job with the time past which it is abandoned (its timeout + 60 s after it
    started, for a worker that died with it); its clean-up runs only now and then, and only in a worker."""
    init_metrics(app)
    boards = f"rq:wip:{settings.board_queue}"
    now = int(time.time())
    # a board game started a minute ago by a worker that is still on it (it said so a moment ago),
    # and one abandoned an hour ago, though the same worker's hash still names it
    redis_conn.zadd(boards, {"board-live:exec1": now + 600, "board-dead:exec2": now - 3600})
    live, worker = live_workers_key(settings.key_prefix), "rq:worker:metrics-test-worker"
    redis_conn.zadd(live, {"metrics-test-worker": now * 1000})
    redis_conn.hset(worker, "current_job", "board-live")
    try:
        text = scrape(client)
        assert value(text, "ginbox_bot_jobs_running", queue="boards") == 1
        assert value(text, "ginbox_bot_jobs_running", queue="turns") == 0
        redis_conn.hset(worker, "current_job", "board-dead")
        assert value(scrape(client), "ginbox_bot_jobs_running", queue="boards") == 0
    finally:
        redis_conn.delete(boards, live, worker)


def running_boards(client) -> float:
    return value(scrape(client), "ginbox_bot_jobs_running", queue="boards")


def what_the_gauge_read(settings, redis_conn, workers) -> str:
    """What the running gauge is made of (RQ's keys, the live workers), and each worker's exit and log."""
    live = redis_conn.zrange(live_workers_key(settings.key_prefix), 0, -1, withscores=True)
    lines = [f"now: {time.time():.3f}",
             f"board queue: {redis_conn.lrange(f'rq:queue:{settings.board_queue}', 0, -1)}",
             f"started: {redis_conn.zrange(f'rq:wip:{settings.board_queue}', 0, -1, withscores=True)}",
             f"live workers: {live}",
             *(f"{name!r} current job: {redis_conn.hget(b'rq:worker:' + (name if isinstance(name, bytes) else name.encode()), 'current_job')}"
               for name, _ in live)]
    for i, w in enumerate(workers.workers):
        lines.append(f"--- worker {i} (exit {w.proc.poll()}):\n{w.log_text()[-3000:]}")
    return "\n".join(lines)


def game_in_play(settings, redis_conn, app) -> bool:
    """Whether the live worker's board job (or the game its chain plays on) is a game not over.

    A worker killed after its last game ended, before RQ marked its job finished, loses no game:
    nothing is found lost, and RQ's own clean-up expires its started job later.
    """
    live = redis_conn.zrangebyscore(live_workers_key(settings.key_prefix),
                                    int((time.time() - WORKER_ALIVE_S) * 1000), "+inf")
    for name in (n.decode() for n in live):
        job = (redis_conn.hget(f"rq:worker:{name}", "current_job") or b"").decode()
        if not job.startswith("board-"):
            continue
        word = (redis_conn.hget(board_runs_key(settings.key_prefix), name) or b"").decode()
        rq_job, _, run = word.partition(" ")
        game_id = (run if rq_job == job else job)[len("board-"):].rpartition("-")[0]
        return app.extensions["ginbox"].repository.load_state(game_id).status == "playing"
    return False


@pytest.mark.slow
def test_a_board_job_whose_worker_was_killed_is_no_longer_counted_once_another_worker_takes_it_up(
        app, client, settings, workers, redis_conn):
    """The worker is killed in the middle of a match, in its first game or in a chain of games.

    Either way the game found lost is another job than the one RQ has as started (a version later,
    or another game of the chain): the sweeper deletes the lost run too."""
    init_metrics(app)
    # a board is one hand (a second or so of the expert's turns): twelve keep one worker busy a while
    match = client.post("/matches", json={"variant": "gin-rami", "participants": ["expert", "expert"], "boards": 12})
    assert match.status_code == 201, match.get_data(as_text=True)
    match_id = match.get_json()["match_id"]
    first = workers.start()
    explain = lambda: what_the_gauge_read(settings, redis_conn, workers)  # noqa: E731
    wait_for(lambda: running_boards(client) == 1, "a board game started", explain)
    # the worker has played a game to its end and plays on: it is killed inside a game, frozen first
    # (SIGSTOP to its process group) so that the test sees the game it is killed in
    frozen_when(first.proc, lambda: client.get(f"/matches/{match_id}").get_json()["games_done"] >= 1
                and running_boards(client) == 1,
                lambda: running_boards(client) == 1 and game_in_play(settings, redis_conn, app), DEADLINE_S)
    workers.kill9(first)
    # RQ still has its job as started; its worker's last heartbeat is recent for a few seconds more
    assert redis_conn.zcard(f"rq:wip:{settings.board_queue}") == 1, explain()
    workers.start()
    wait_for(lambda: client.get(f"/matches/{match_id}").get_json()["status"] == "over", "the match to end", explain)
    wait_for(lambda: running_boards(client) == 0, "no board job counted as running", explain)
    # the live worker's last job leaves RQ's registry a moment after the metric stops counting it;
    # the lost run would stay there for its timeout and a minute more (far past the deadline)
    wait_for(lambda: redis_conn.zcard(f"rq:wip:{settings.board_queue}") == 0, "RQ's started registry emptied",
             explain)
