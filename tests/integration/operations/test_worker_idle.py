"""An idle ``ginbox worker`` keeps its RQ loop: no socket timeout, no restart, and it still plays.

RQ blocks on the queue (BLPOP) for ``worker_ttl - 15`` seconds at a time. If that blocking read
outlasts the queue connection's socket timeout, every idle period ends in "Redis connection
timeout, quitting..." and a restart of the loop; the worker must instead wait idle quietly.
"""

from __future__ import annotations

import time

import pytest

from service.composition import QUEUE_SOCKET_TIMEOUT_S, WORKER_TTL_S, make_bot_scheduler
from service.config import Settings
from support.apiclient import ValidatingClient
from support.servers import WorkerProcess, service_env

# longer than one blocking read plus the socket timeout of the connection it runs on: with a
# read that outlasted the timeout, the loop would have ended at least once by then
IDLE_S = (WORKER_TTL_S - 15) + QUEUE_SOCKET_TIMEOUT_S + 5


@pytest.mark.slow
def test_an_idle_worker_keeps_waiting_and_then_plays_bot_turns(redis_url, key_prefix, tmp_path):
    settings = Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                        rate_limit_per_minute=1_000_000)
    worker = WorkerProcess(service_env(redis_url, key_prefix), tmp_path / "worker.log").start()
    try:
        time.sleep(IDLE_S)
        assert worker.proc.poll() is None, f"the idle worker exited:\n{worker.log_text()}"
        log = worker.log_text().lower()
        for word in ("timeout", "quitting", "starting again", "loop failed"):
            assert word not in log, f"{word!r} in the idle worker's log:\n{worker.log_text()}"

        # after the idle spell it still takes jobs: two bots play on
        from service.app import create_app

        client = ValidatingClient(create_app(settings, bot_scheduler=make_bot_scheduler(settings)))
        resp = client.post("/games", json={"variant": "gin-rami", "seats": [{"bot": "basic"}, {"bot": "basic"}]})
        assert resp.status_code == 201, resp.get_data(as_text=True)
        game_id = resp.get_json()["game_id"]
        deadline = time.monotonic() + 60
        while True:
            view = client.get(f"/games/{game_id}").get_json()
            if view["version"] >= 20 or view["status"] != "playing":
                break
            assert time.monotonic() < deadline, f"the bots stalled at version {view['version']}:\n{worker.log_text()}"
            time.sleep(0.2)
        assert worker.proc.poll() is None
    finally:
        worker.stop()
