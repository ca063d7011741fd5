"""Bot workers under faults: killed -9 in the middle of a turn, and Redis killed in the middle of one.

A ``ginbox worker`` process plays every bot turn. To kill it *inside* a turn, and not merely
somewhere in a game, it reaches Redis through a relay (support.servers.FreezingProxy) that
freezes the moment the worker sends the append of one of its moves: either before the append
reaches Redis (the turn was decided but not recorded) or after Redis ran it but before the worker
heard back (recorded, but the job never finished nor scheduled the next turn). The worker is
then killed -9, a new worker started, and the game must finish with each turn in its log once:
the log is cut into groups, each exactly one legal command of the seat to act. The same relay
holds a worker inside a turn while Redis itself is killed -9 and later restarted on its data:
the worker must not exit, and must play the game to its end.
"""

from __future__ import annotations

import re
import time

import pytest
from rq.job import Job
from rq.registry import StartedJobRegistry
from support.logcheck import commands_in_log
from support.servers import FreezingProxy, WorkerProcess, service_env

from service.bots import bot_job_id, bot_queue
from service.composition import make_bot_scheduler
from service.config import Settings
from service.connections import redis_client
from service.redis_process import RedisServerProcess
from support.apiclient import ValidatingClient

GAME_DEADLINE_S = 90
TARGET_SCORE = 25            # short games: a few hands of bots
STALL_S = 1.0                # the workers' bot_stall_s: how soon a lost turn is re-enqueued
KILL_AT_APPEND = 6           # the worker is caught at its 6th move of the game
# Redis stays down longer than the worker's pause before it starts its loop again (1 s), so the
# restart of the loop happens while Redis is still away
REDIS_DOWN_S = 3.0


def settings_for(redis_url: str, key_prefix: str) -> Settings:
    return Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                    rate_limit_per_minute=0, bot_stall_s=STALL_S)


def worker_env(redis_url: str, key_prefix: str) -> dict:
    return service_env(redis_url, key_prefix, GINBOX_BOT_STALL_S=STALL_S, GINBOX_REDIS_TIMEOUT=2.0)


def make_app(settings: Settings):
    from service.app import create_app

    return create_app(settings, bot_scheduler=make_bot_scheduler(settings))


def create_bot_game(client) -> str:
    resp = client.post("/games", json={"variant": "gin-rami", "options": {"target_score": TARGET_SCORE},
                                       "seats": [{"bot": "basic"}, {"bot": "random"}]})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["game_id"]


def wait_for(pred, deadline_s: float, what: str):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        got = pred()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def started_turns(queue) -> list[int]:
    """Versions of the bot jobs a worker has started and not finished."""
    registry = StartedJobRegistry(queue=queue)
    return sorted(int(re.search(r"-(\d+)$", job_id).group(1)) for job_id in registry.get_job_ids())


def appends_of(game_id: str):
    """True for a chunk of the worker's traffic that runs the append script on this game's log."""
    key = f"{{{game_id}}}:stream".encode()
    return lambda data: b"EVAL" in data and key in data


@pytest.mark.parametrize("mode", ["drop", "forward"])
@pytest.mark.slow
def test_a_worker_killed_in_the_middle_of_a_bot_turn_leaves_the_turn_played_exactly_once(
        mode, redis_url, key_prefix, tmp_path):
    """mode "drop": killed before its append reached Redis; "forward": after Redis recorded it."""
    settings = settings_for(redis_url, key_prefix)
    app = make_app(settings)
    client = ValidatingClient(app)
    store = app.extensions["ginbox"].store
    conn = redis_client(redis_url)
    # the turns of a game of built-in bots alone go to the board queue (service.bots.turn_queue_for)
    queue = bot_queue(conn, settings.board_queue)
    host, port = redis_url.split("//")[1].split("/")[0].split(":")
    game_id = create_bot_game(client)
    proxy = FreezingProxy(host, int(port), appends_of(game_id), nth=KILL_AT_APPEND, mode=mode)
    caught = WorkerProcess(worker_env(proxy.url, key_prefix), tmp_path / "worker-caught.log").start()
    rescuer = WorkerProcess(worker_env(redis_url, key_prefix), tmp_path / "worker-rescuer.log")
    try:
        assert proxy.frozen.wait(GAME_DEADLINE_S), "the worker never got to its move"
        # the relay is frozen: the worker is blocked inside the turn; kill it there
        caught.kill9()
        version_at_kill = store.version(game_id)
        started = started_turns(queue)  # the one job it had started: the turn it was killed in
        assert len(started) == 1, f"started: {started}\n{caught.log_text()[-3000:]}"
        [turn] = started
        if mode == "drop":
            # the append never reached Redis: the game still waits at the turn's version
            assert turn == version_at_kill
        else:
            # Redis recorded the move, but nothing after it: no job for the next turn exists
            assert turn < version_at_kill
            assert Job.exists(bot_job_id(game_id, version_at_kill), connection=conn) is False
        time.sleep(STALL_S * 2)
        assert store.version(game_id) == version_at_kill, "a move was played with no worker running"

        rescuer.start()
        final = wait_for(lambda: (v := client.get(f"/games/{game_id}").get_json())["status"] == "over" and v,
                         GAME_DEADLINE_S, "the game to finish after the rescue")
        assert max(final["scores"]) >= TARGET_SCORE
        records = store.load(game_id)
        _, groups = commands_in_log(records)  # every turn is one legal command, none doubled
        # the interrupted turn is one group, of the seat whose turn it was
        first_after = min(v for v in groups if v > turn)
        assert records[turn].version == turn + 1
        assert groups[first_after][0] == records[turn].event.seat
        if mode == "forward":
            assert first_after == version_at_kill  # the recorded move, not a second one
    finally:
        caught.kill9()
        rescuer.stop()
        proxy.close()
        conn.close()


@pytest.mark.slow
def test_a_worker_resumes_by_itself_when_redis_is_killed_in_the_middle_of_a_turn_and_restarted(tmp_path, key_prefix):
    """Redis dies while the worker is inside a bot turn (held at its append by the relay), stays
    down for a few seconds, and comes back on its data: the same worker process plays on."""
    server = RedisServerProcess(tmp_path / "redis", appendfsync="always").start()
    settings = settings_for(server.url, key_prefix)
    worker = proxy = None
    try:
        app = make_app(settings)
        client = ValidatingClient(app)
        store = app.extensions["ginbox"].store
        game_id = create_bot_game(client)
        proxy = FreezingProxy(server.host, server.port, appends_of(game_id), nth=KILL_AT_APPEND, mode="drop")
        worker = WorkerProcess(worker_env(proxy.url, key_prefix), tmp_path / "worker.log").start()
        assert proxy.frozen.wait(GAME_DEADLINE_S), "the worker never got to its move"

        server.kill()      # kill -9 while the worker waits for its append
        proxy.release()    # its connections break now, in the middle of the job
        time.sleep(REDIS_DOWN_S)
        assert worker.proc.poll() is None, "the worker exited while Redis was down"
        server = RedisServerProcess(server.data_dir, port=server.port, appendfsync="always").start()
        at_restart = store.version(game_id)

        final = wait_for(lambda: (v := client.get(f"/games/{game_id}").get_json())["status"] == "over" and v,
                         GAME_DEADLINE_S, "the game to finish after the restart")
        assert worker.proc.poll() is None, "the same worker process played on"
        assert final["version"] > at_restart
        assert max(final["scores"]) >= TARGET_SCORE
        commands_in_log(store.load(game_id))
    finally:
        if worker is not None:
            worker.stop()
        if proxy is not None:
            proxy.close()
        server.kill()
