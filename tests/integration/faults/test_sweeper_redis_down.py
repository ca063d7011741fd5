"""The worker's sweeper thread while Redis is away: one short line when it goes, one when it is back.

A tick every 50 ms against a real redis-server the test starts, kills (-9) and starts again on
its port: however many ticks fail meanwhile, the log says so once, without a traceback. An
error that is no lost connection (a key of the wrong type) keeps its traceback.
"""

from __future__ import annotations

import logging
import threading

import pytest

from service.bots import awaiting_key
from service.config import Settings
from service.redis_process import RedisServerProcess
from workers.runner import build_context
from workers.sweeper import Sweeper
from support import waiting

DEADLINE_S = 30


class CountingEvent(threading.Event):
    """The sweeper's stop event, counting its waits: one per tick."""

    def __init__(self):
        super().__init__()
        self.waits = 0

    def wait(self, timeout=None):
        self.waits += 1
        return super().wait(timeout)


def wait_for(pred, what: str):
    return waiting.wait_for(pred, what, DEADLINE_S, every_s=0.02)


def sweeper_lines(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "workers.sweeper" and r.levelno >= logging.WARNING]


def start_sweeper(url: str, key_prefix: str) -> Sweeper:
    settings = Settings(redis_url=url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                        redis_timeout_s=1.0, bot_stall_s=0.4)
    sweeper = Sweeper(build_context(settings), tick_s=0.05)
    sweeper.stopping = CountingEvent()
    sweeper.start()
    return sweeper


def ticks_pass(sweeper: Sweeper, n: int, what: str) -> None:
    start = sweeper.stopping.waits
    wait_for(lambda: sweeper.stopping.waits >= start + n, what)


@pytest.mark.slow
def test_redis_killed_and_back_is_one_warning_line_each_way_not_a_traceback_a_tick(tmp_path, key_prefix, caplog):
    caplog.set_level(logging.INFO, logger="workers.sweeper")
    server = RedisServerProcess(tmp_path / "redis").start()
    sweeper = None
    try:
        sweeper = start_sweeper(server.url, key_prefix)
        ticks_pass(sweeper, 3, "ticks with Redis up")
        assert sweeper_lines(caplog) == []

        server.kill()
        ticks_pass(sweeper, 20, "ticks with Redis down")
        lines = sweeper_lines(caplog)
        assert [r.levelname for r in lines] == ["WARNING"]
        message = lines[0].getMessage()
        assert message.startswith("redis unreachable: ") and message.endswith("; retrying")
        assert "\n" not in message and len(message) < 300
        assert lines[0].exc_info is None

        server = RedisServerProcess(server.data_dir, port=server.port).start()
        wait_for(lambda: len(sweeper_lines(caplog)) == 2, "the line saying Redis is back")
        ticks_pass(sweeper, 10, "ticks with Redis back")
        lines = sweeper_lines(caplog)
        assert len(lines) == 2
        assert lines[1].levelname == "WARNING" and lines[1].exc_info is None
        assert lines[1].getMessage() == "redis reachable again: the sweeper goes on"
    finally:
        if sweeper is not None:
            sweeper.stop()
            sweeper.join(10)
        server.kill()


@pytest.mark.slow
def test_an_error_that_is_no_lost_connection_keeps_its_traceback(tmp_path, key_prefix, caplog):
    caplog.set_level(logging.INFO, logger="workers.sweeper")
    server = RedisServerProcess(tmp_path / "redis").start()
    sweeper = None
    try:
        # the set of games waiting on a bot is a string: reading it as a sorted set fails (WRONGTYPE)
        conn = build_context(Settings(redis_url=server.url, key_prefix=key_prefix)).queue.connection
        conn.set(awaiting_key(key_prefix), "not a sorted set")
        sweeper = start_sweeper(server.url, key_prefix)
        wait_for(lambda: sweeper_lines(caplog), "the sweep to fail")
        first = sweeper_lines(caplog)[0]
        assert first.getMessage() == "bot sweeper tick failed"
        assert first.exc_info is not None and "WRONGTYPE" in str(first.exc_info[1])
    finally:
        if sweeper is not None:
            sweeper.stop()
            sweeper.join(10)
        server.kill()
