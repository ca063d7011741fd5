"""Fixtures of the arena's integration tests: the service on the test's Redis (key prefix and bot
queue of its own), a validating client, the app served on a real socket, and ``ginbox worker``
processes. A test module imports the ones it uses (``from support.arena_fixtures import app,
client, settings``) and may define its own ``settings`` to change them.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from service.config import Settings

from support.apiclient import ValidatingClient
from support.servers import WorkerPool


def arena_settings(redis_url: str, key_prefix: str, **extra) -> Settings:
    """Settings for a test: no rate limit to speak of, stalled bot turns retried after 2 s."""
    from support.apiclient import NO_WINDOW_BUDGETS

    return Settings(**{"redis_url": redis_url, "key_prefix": key_prefix, "queue_name": f"{key_prefix}-bots",
                       "rate_limit_per_minute": 1_000_000, "bot_stall_s": 2.0, **NO_WINDOW_BUDGETS, **extra})


def worker_pool(settings: Settings, tmp_path: Path) -> WorkerPool:
    """``ginbox worker`` processes on the test's Redis, key prefix and queue (stopped by the caller)."""
    return WorkerPool(settings.redis_url, settings.key_prefix, tmp_path, GINBOX_QUEUE=settings.queue_name,
                      GINBOX_BOT_STALL_S=settings.bot_stall_s)


@pytest.fixture
def settings(redis_url, key_prefix) -> Settings:
    return arena_settings(redis_url, key_prefix)


@pytest.fixture
def app(settings):
    from service.app import create_app
    from service.composition import make_bot_scheduler

    return create_app(settings, bot_scheduler=make_bot_scheduler(settings))


@pytest.fixture
def client(app):
    return ValidatingClient(app)


@pytest.fixture
def base(app):
    """The app served over a real socket (outside bots and streams use plain HTTP)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture
def workers(settings, tmp_path):
    w = worker_pool(settings, tmp_path)
    yield w
    w.stop_all()
