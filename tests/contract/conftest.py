"""Fixtures for the contract tests (same app and validating client as the integration tests)."""

from __future__ import annotations

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
