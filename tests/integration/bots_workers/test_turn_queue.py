"""A bot's turn never waits behind a match's whole board games.

A match of built-in policies plays each board game whole in one job (service.rules.actors.plays_whole);
those jobs go to the board queue, the bot turns of people's games to the turn queue, and the
workers ``ginbox serve`` starts by default always have one that serves turns. Checked on a real
Redis with real ``ginbox serve`` workers (order, not time: the bot answers while board jobs queued
before its turn still wait), and the sweeper's recovery of a lost board job (it goes back on the
board queue, never the turn queue).
"""

from __future__ import annotations

import random
import subprocess
import sys
import time

import pytest
from rq.job import Job

from service.composition import make_bot_scheduler
from service.config import Settings
from service.redis_process import free_port
from support.randomplay import choose_move
from support.servers import REPO, HttpClient, _stop_group, service_env
from support.job_context import ctx  # noqa: F401 (fixture)
from workers.runner import parse_queues
from workers.sweeper import promote_due, stalled_games

from service.bots import board_job_id
from service import bots


def _ids(conn, queue_name: str) -> list[str]:
    return [j.decode() if isinstance(j, bytes) else j for j in conn.lrange(f"rq:queue:{queue_name}", 0, -1)]


def _board_jobs_in_play(conn, settings: Settings) -> set[str]:
    """The board-game jobs a worker has started and not finished (RQ's started registry)."""
    return {(j.decode() if isinstance(j, bytes) else j)
            for name in (settings.queue_name, settings.board_queue) for j in conn.zrange(f"rq:wip:{name}", 0, -1)
            if (j.decode() if isinstance(j, bytes) else j).startswith("board-")}


def _board_jobs_waiting(conn, settings: Settings) -> set[str]:
    """The board-game jobs waiting in any of the service's queues (the turn queue too, should one be there)."""
    return {j for name in (settings.queue_name, settings.board_queue) for j in _ids(conn, name)
            if j.startswith("board-")}


# -- the queues, the scheduler and the sweeper (no worker: the test looks at the queues) ------------


@pytest.fixture
def settings(redis_url, key_prefix) -> Settings:
    return Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                    rate_limit_per_minute=1_000_000, bot_stall_s=2.0)


def test_board_games_go_to_the_board_queue_and_bot_turns_to_the_turn_queue(settings, ctx, redis_conn):
    from service.app import create_app

    app = create_app(settings, bot_scheduler=make_bot_scheduler(settings))
    client = app.test_client()
    created = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "basic"], "boards": 3})
    assert created.status_code == 201, created.get_json()
    boards = _ids(redis_conn, settings.board_queue)
    assert len(boards) == 6 and all(j.startswith("board-") for j in boards)
    assert _ids(redis_conn, settings.queue_name) == []
    game = client.post("/games", json={"variant": "gin-rami", "seats": [{"bot": "basic"}, {"name": "me"}],
                                       "first_dealer": 1}).get_json()
    version = client.get(f"/games/{game['game_id']}").get_json()["version"]
    assert _ids(redis_conn, settings.queue_name) == [bots.bot_job_id(game["game_id"], version)]
    assert _ids(redis_conn, settings.board_queue) == boards
    # the worker's own queues are the same two, turns first
    assert [q.name for q in (ctx.queue, ctx.board_queue)] == [settings.queue_name, settings.board_queue]


def test_the_board_queue_is_named_by_its_own_setting_or_after_the_turn_queue():
    assert Settings(queue_name="q").board_queue == "q-boards"
    assert Settings(queue_name="q", board_queue_name="matches").board_queue == "matches"
    assert Settings().board_queue == "ginbox-bots-boards"


def test_the_sweeper_puts_a_lost_board_job_back_on_the_board_queue_and_leaves_a_waiting_one(settings, ctx, redis_conn):
    from service.app import create_app

    app = create_app(settings, bot_scheduler=make_bot_scheduler(settings))
    client = app.test_client()
    assert client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "random"],
                                         "boards": 1}).status_code == 201
    boards = _ids(redis_conn, settings.board_queue)
    assert len(boards) == 2
    later = int(time.time() * 1000) + 60_000  # both games have waited longer than bot_stall_s by then
    # waiting on the board queue (behind other board games) is no stall: nothing is enqueued again
    assert stalled_games(ctx, now_ms=later) == []
    assert _ids(redis_conn, settings.board_queue) == boards and _ids(redis_conn, settings.queue_name) == []
    # one job lost with its worker: it is enqueued again on the board queue, not as a turn job
    lost = boards[0]
    Job.fetch(lost, connection=ctx.queue.connection, serializer=ctx.queue.serializer).delete(remove_from_queue=True)
    recovered = stalled_games(ctx, now_ms=later + 60_000)
    assert len(recovered) == 1
    state = ctx.repository.load_state(recovered[0])
    assert board_job_id(recovered[0], state.version) == lost
    assert sorted(_ids(redis_conn, settings.board_queue)) == sorted(boards)
    assert _ids(redis_conn, settings.queue_name) == []


def test_a_board_game_played_whole_marks_its_wait_fresh_and_schedules_nothing(settings, ctx, redis_conn):
    from service.app import create_app

    app = create_app(settings, bot_scheduler=make_bot_scheduler(settings))
    assert app.test_client().post("/matches", json={"variant": "gin-rami", "participants": ["basic", "random"],
                                                     "boards": 1}).status_code == 201
    boards = _ids(redis_conn, settings.board_queue)
    job = Job.fetch(boards[0], connection=ctx.queue.connection, serializer=ctx.queue.serializer)
    game_id = job.args[0]
    key = bots.awaiting_key(settings.key_prefix)
    redis_conn.zadd(key, {game_id: 1})  # as if its wait began long ago
    # an append of the job playing it: the sweeper must not take the job in play for a lost one
    ctx.games.after_append(game_id, ctx.repository.load_state(game_id), whole=True)
    assert redis_conn.zscore(key, game_id) > 1
    assert _ids(redis_conn, settings.board_queue) == boards and _ids(redis_conn, settings.queue_name) == []
    # a game no longer waiting is not put back by the mark
    other = Job.fetch(boards[1], connection=ctx.queue.connection, serializer=ctx.queue.serializer).args[0]
    redis_conn.zrem(key, other)
    ctx.games.after_append(other, ctx.repository.load_state(other), whole=True)
    assert redis_conn.zscore(key, other) is None


def test_a_board_job_s_retry_is_released_onto_the_board_queue(settings, ctx, redis_conn):
    from datetime import datetime, timedelta, timezone

    from service.bots import PLAY_BOARD_GAME

    # a failed job's retry waits in the scheduled registry of the queue it came from
    ctx.board_queue.enqueue_at(datetime.now(timezone.utc) - timedelta(seconds=1), PLAY_BOARD_GAME, "g1", 7,
                               job_id=board_job_id("g1", 7))
    assert _ids(redis_conn, settings.board_queue) == []
    assert promote_due(ctx) == 1
    assert _ids(redis_conn, settings.board_queue) == [board_job_id("g1", 7)]
    assert _ids(redis_conn, settings.queue_name) == []


def test_worker_queues_are_turns_boards_or_both_turns_first():
    assert parse_queues("turns,boards") == ("turns", "boards")
    assert parse_queues("boards, turns") == ("turns", "boards")
    assert parse_queues("turns") == ("turns",)
    assert parse_queues("boards") == ("boards",)
    for bad in ("", "bots", "turns,matches", ","):
        with pytest.raises(ValueError):
            parse_queues(bad)


def test_ginbox_worker_refuses_an_unknown_queue(capsys):
    from service.cli import main

    assert main(["worker", "--queues", "everything"]) == 2
    assert "some of turns, boards, analysis and archive" in capsys.readouterr().err


# -- ginbox serve with its default workers --------------------------------------------------------


def _serve(redis_url: str, key_prefix: str, tmp_path, **extra) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = service_env(redis_url, key_prefix, GINBOX_DATA_DIR=str(tmp_path / "data"), GINBOX_PROCESSES="1",
                      GINBOX_CONNECTIONS="50", GINBOX_RATE_LIMIT="1000000", **extra)
    for name in ("GINBOX_BOT_WORKERS", "GINBOX_TURN_WORKERS", "GINBOX_WORKER_QUEUES", "GINBOX_BOARD_QUEUE"):
        env.pop(name, None)  # the defaults of ginbox serve
    log = open(tmp_path / "serve.log", "ab")
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port)], cwd=REPO,
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    log.close()
    client = HttpClient("127.0.0.1", port, timeout=5.0)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
        try:
            if client.call("GET", "/readyz").status == 200:
                return proc, port
        except OSError:
            pass
        time.sleep(0.2)
    _stop_group(proc)
    raise AssertionError("ginbox serve did not become ready within 60 s")


def _wait_for_the_bot(client: HttpClient, game_id: str) -> dict:
    """The game once seat 0 (the bot) is no longer to act."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        body = client.call("GET", f"/games/{game_id}").body
        if 0 not in body["to_act"]:
            return body
        time.sleep(0.01)
    raise AssertionError(f"the bot never moved in game {game_id}")


@pytest.mark.slow
def test_a_bot_answers_a_person_while_a_match_s_board_games_queued_before_it_still_wait(
        redis_url, key_prefix, redis_conn, tmp_path):
    settings = Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots")
    proc, port = _serve(redis_url, key_prefix, tmp_path)
    try:
        client = HttpClient("127.0.0.1", port, timeout=10.0)
        match = client.call("POST", "/matches", {"variant": "gin-rami", "participants": ["basic", "basic"],
                                                  "boards": 40})
        assert match.status == 201, match.body
        # the person's game: the bot (seat 0, not the dealer) speaks first
        ahead = _board_jobs_waiting(redis_conn, settings)
        assert len(ahead) >= 4, "the match's board games should be waiting for a worker"
        game = client.call("POST", "/games", {"variant": "gin-rami", "seats": [{"bot": "basic"}, {"name": "me"}],
                                              "first_dealer": 1})
        assert game.status == 201, game.body
        game_id = game.body["game_id"]
        token = next(s["token"] for s in game.body["seats"] if s["seat"] == 1)
        rng = random.Random(7)
        answered = 0
        moved_at = -1  # the version of the person's last move
        while answered < 2:
            state = _wait_for_the_bot(client, game_id)
            assert state["status"] == "playing", state
            if state["version"] > moved_at:
                # order, not time: the bot answered while board jobs enqueued before its turn still wait
                still = ahead & _board_jobs_waiting(redis_conn, settings)
                assert still, (f"bot answer {answered + 1} came only after all {len(ahead)} board games "
                               "queued before it had left the queue")
                answered += 1
            # the person moves (passing the upcard if offered); then, or after the next, the bot answers
            ahead = _board_jobs_waiting(redis_conn, settings)
            assert ahead, "the match's board games should still be waiting for a worker"
            view = client.call("GET", f"/games/{game_id}", token=token).body
            move = {"type": "pass_upcard"} if {"type": "pass_upcard"} in view["legal_moves"] else choose_move(view, rng)
            reply = client.call("POST", f"/games/{game_id}/moves", move, token=token)
            assert reply.status in (200, 201), reply.body
            moved_at = reply.version
    finally:
        _stop_group(proc, timeout=30)


@pytest.mark.slow
def test_a_bot_answers_a_person_while_every_worker_on_the_board_queue_is_in_the_middle_of_a_game(
        redis_url, key_prefix, redis_conn, tmp_path):
    # experts with a long budget: a board game in play lasts many moves of their thinking
    settings = Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots")
    proc, port = _serve(redis_url, key_prefix, tmp_path, GINBOX_BOT_BUDGET_MS="1000")
    try:
        client = HttpClient("127.0.0.1", port, timeout=10.0)
        match = client.call("POST", "/matches", {"variant": "gin-rami", "participants": ["expert", "expert"],
                                                  "boards": 2})
        assert match.status == 201, match.body
        deadline = time.monotonic() + 60
        while not (in_play := _board_jobs_in_play(redis_conn, settings)):
            assert time.monotonic() < deadline, "no worker started a board game"
            time.sleep(0.01)
        game = client.call("POST", "/games", {"variant": "gin-rami", "seats": [{"bot": "basic"}, {"name": "me"}],
                                              "first_dealer": 1})
        assert game.status == 201, game.body
        _wait_for_the_bot(client, game.body["game_id"])
        # order, not time: the board game in play when the bot's turn came is still in play
        assert in_play & _board_jobs_in_play(redis_conn, settings), \
            "the bot's turn waited for the board game in play to end"
    finally:
        _stop_group(proc, timeout=30)
