"""The browser tests' harness: the real app and bot workers, and headless Chromium drivers.

``live_server`` runs the API under gunicorn (as ``ginbox serve`` does) and a ``ginbox worker`` for
the bots, on the session's Redis under a key prefix of their own, and yields the base URL.
``new_browser()`` opens a new headless Chromium (a driver of its own: separate storage, separate
tokens), driven through the system's chromedriver; every browser is closed after the test.
Selenium never downloads a driver or a browser here (SE_OFFLINE, and explicit paths).

Every test in this folder is marked ``browser`` and ``slow`` (a real server and a real browser take
seconds), so the fast loop (``-m "not slow"``) leaves them out and ``-m browser`` picks them.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from chromium import open_browser
from support.servers import ApiServer, WorkerProcess, service_env


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
            # a real server and a real browser take seconds: the fast loop (-m "not slow") leaves them out
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def live_server(redis_url, tmp_path_factory):
    """The base URL of the real app (gunicorn, gevent) with one bot worker, on real Redis."""
    prefix = f"gbb{uuid.uuid4().hex[:10]}"
    logs = tmp_path_factory.mktemp("browser-server")
    # one address makes every page's requests: its caps are the pages' business only where a test
    # says so (the cap on games of bots alone has tests of its own)
    env = service_env(redis_url, prefix, GINBOX_RATE_LIMIT=100000, GINBOX_BOT_STALL_S=5,
                      GINBOX_BOT_GAMES_PER_CALLER=0, GINBOX_BOT_GAMES_IN_PLAY=0)
    server = ApiServer(env, logs / "api.log", workers=1).start()
    worker = WorkerProcess(env, logs / "worker.log").start()
    try:
        yield f"http://{server.host}:{server.port}"
    finally:
        worker.stop()
        server.stop()


@pytest.fixture
def new_browser():
    """A factory: ``new_browser(width=1280, height=900)`` opens another browser; all close after the test."""
    opened = []

    def make(width: int = 1280, height: int = 900):
        driver = open_browser(width, height)
        opened.append(driver)
        return driver

    yield make
    for driver in opened:
        try:
            driver.quit()
        except Exception:  # a browser that already died must not hide the test's own failure
            pass
