"""Fixtures for the API tests: the app on real Redis and a client that checks openapi.yaml.

``api`` is the client every API test uses: each response it receives is validated against
openapi.yaml with openapi-core (and each request the server accepted), so a contract
violation anywhere in the suite fails the test that caused it.
"""

from __future__ import annotations

import uuid

import pytest

from support.apiclient import ValidatingClient, load_openapi, make_app


@pytest.fixture
def api_app(redis_url, key_prefix):
    """The Flask app on the session's Redis, under this test's own key prefix."""
    return make_app(redis_url, key_prefix)


@pytest.fixture
def api(api_app) -> ValidatingClient:
    """A test client whose every exchange is validated against openapi.yaml."""
    return ValidatingClient(api_app, load_openapi())


@pytest.fixture(scope="module")
def gunicorn_api(redis_url, tmp_path_factory):
    """The API under gunicorn with gevent workers, as ``ginbox serve`` starts it, for the tests that
    speak HTTP byte by byte (a module may override it, e.g. to try each worker class)."""
    from support.servers import ApiServer, service_env

    env = service_env(redis_url, f"gbh{uuid.uuid4().hex[:12]}", GINBOX_RATE_LIMIT=10**9)
    server = ApiServer(env, tmp_path_factory.mktemp("gunicorn") / "gunicorn.log").start()
    try:
        yield server
    finally:
        server.stop()
