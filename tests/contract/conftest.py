"""Fixtures for the contract tests (same app and validating client as the integration tests).

The fast loop does not collect the schemathesis module: all its tests are slow, and collecting
them alone takes seconds in every test process.
"""

from __future__ import annotations

import uuid

import pytest

from support.apiclient import ValidatingClient, load_openapi, make_app
from support.servers import ApiServer, WorkerProcess, service_env

#: modules whose every test is marked slow and whose collection alone takes seconds
#: (schemathesis draws its coverage cases for each operation while it collects)
SLOW_TO_COLLECT = {"test_schemathesis.py"}


def pytest_ignore_collect(collection_path, config):
    """Leave out the SLOW_TO_COLLECT modules when the -m expression deselects slow tests."""
    if collection_path.name not in SLOW_TO_COLLECT or not config.option.markexpr:
        return None
    try:
        from _pytest.mark.expression import Expression

        wanted = Expression.compile(config.option.markexpr).evaluate(lambda name, **kwargs: name == "slow")
    except Exception:  # pytest's expression module is internal: should it change, collect as before
        return None
    # the fast loop (-m "not slow") would deselect every one of their tests after paying for them
    return True if not wanted else None


@pytest.fixture
def api_app(redis_url, key_prefix):
    """The Flask app on the session's Redis, under this test's own key prefix."""
    return make_app(redis_url, key_prefix)


@pytest.fixture
def api(api_app) -> ValidatingClient:
    """A test client whose every exchange is validated against openapi.yaml."""
    return ValidatingClient(api_app, load_openapi())


@pytest.fixture(scope="module")
def served_api(tmp_path_factory, redis_url):
    """The API under gunicorn (its default gevent worker) on a free port, and one ``ginbox worker`` so
    that the built-in bots move, on a key prefix of their own and with no practical rate limit; the
    API's base URL."""
    where = tmp_path_factory.mktemp("served-api")
    env = service_env(redis_url, f"gbsa{uuid.uuid4().hex[:12]}", GINBOX_RATE_LIMIT=10**9)
    worker = WorkerProcess(env, where / "worker.log").start()
    try:
        with ApiServer(env, where / "gunicorn.log", workers=1) as api:
            yield f"http://{api.host}:{api.port}"
    finally:
        worker.stop()
