"""GINBOX_METRICS_TOKEN: set, /metrics answers only the bearer of that token (any other request is
401 ``metrics_token_required``, problem+json with its Bearer challenge); unset, /metrics is public as
it always was. The setting is checked at start like the others, and never shown in an error."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from service.config import SettingError, Settings
from support.apiclient import ValidatingClient, load_openapi, make_app

TOKEN = "Zm9yIHRoZSBzY3JhcGVyIG9ubHksIDMyKyBjaGFycw=="


@pytest.fixture
def guarded(redis_url, key_prefix) -> ValidatingClient:
    return ValidatingClient(make_app(redis_url, key_prefix, metrics_token=TOKEN), load_openapi())


def _refused(resp, *, token_presented: bool) -> None:
    assert resp.status_code == 401
    assert resp.mimetype == "application/problem+json"
    assert resp.get_json()["code"] == "metrics_token_required"
    challenge = resp.headers["WWW-Authenticate"]
    assert challenge.startswith("Bearer ") and ('error="invalid_token"' in challenge) == token_presented
    assert "ginbox_http_requests" not in resp.get_data(as_text=True)


def test_with_a_metrics_token_a_scrape_without_it_is_401_and_shows_no_metric(guarded):
    _refused(guarded.get("/metrics"), token_presented=False)
    _refused(guarded.get("/metrics", token=TOKEN[:-1] + "A"), token_presented=True)
    _refused(guarded.get("/metrics", token=TOKEN + "A"), token_presented=True)
    _refused(guarded.get("/metrics", token=TOKEN[:10]), token_presented=True)
    # the token under another scheme is no bearer token
    _refused(guarded.get("/metrics", headers={"Authorization": f"Basic {TOKEN}"}), token_presented=False)


def test_with_a_metrics_token_its_bearer_gets_the_metrics(guarded):
    guarded.get("/healthz")
    resp = guarded.get("/metrics", token=TOKEN)
    assert resp.status_code == 200 and resp.mimetype == "text/plain"
    assert 'ginbox_http_requests_total{method="GET",route="/healthz",status="200"}' in resp.get_data(as_text=True)
    # the scheme's name in any case (RFC 7235)
    assert guarded.get("/metrics", headers={"Authorization": f"bearer {TOKEN}"}).status_code == 200


def test_without_a_metrics_token_metrics_stay_public(api):
    resp = api.get("/metrics")
    assert resp.status_code == 200 and resp.mimetype == "text/plain"


def test_the_setting_is_read_from_the_environment_and_checked(monkeypatch):
    monkeypatch.delenv("GINBOX_METRICS_TOKEN", raising=False)
    assert Settings.from_env().metrics_token is None
    monkeypatch.setenv("GINBOX_METRICS_TOKEN", "")
    assert Settings.from_env().metrics_token is None
    monkeypatch.setenv("GINBOX_METRICS_TOKEN", TOKEN)
    assert Settings.from_env().metrics_token == TOKEN
    assert TOKEN not in repr(Settings.from_env())
    for bad in ("short-token", "x" * 201, "a token with spaces in it, 32+ characters", "é" * 40):
        monkeypatch.setenv("GINBOX_METRICS_TOKEN", bad)
        with pytest.raises(SettingError, match="GINBOX_METRICS_TOKEN") as err:
            Settings.from_env()
        assert bad not in str(err.value)


@pytest.mark.parametrize("bad", ["tooshort", "a token with spaces in it, 32+ characters"])
def test_ginbox_with_a_bad_metrics_token_stops_with_one_line_naming_it_and_exit_2(bad):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GINBOX_") and k != "REDIS_URL"}
    # a worker reads the settings as serve and gunicorn's on_starting do, and stops before it
    # reaches for Redis (nothing listens on port 1)
    done = subprocess.run([sys.executable, "-m", "service.cli", "worker", "--burst"],
                          env={**clean, "REDIS_URL": "redis://127.0.0.1:1/0", "GINBOX_METRICS_TOKEN": bad},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "GINBOX_METRICS_TOKEN" in lines[0] and bad not in lines[0], done.stderr


@pytest.mark.slow
def test_under_gunicorn_the_token_in_the_environment_guards_metrics(tmp_path, redis_url, key_prefix):
    from support.servers import ApiServer, HttpClient, service_env

    env = service_env(redis_url, key_prefix, GINBOX_METRICS_TOKEN=TOKEN)
    api = ApiServer(env, tmp_path / "gunicorn.log").start()
    try:
        http = HttpClient("127.0.0.1", api.port, timeout=30)
        refused = http.call("GET", "/metrics")
        assert refused.status == 401 and refused.headers["content-type"] == "application/problem+json"
        assert refused.body["code"] == "metrics_token_required"
        assert http.call("GET", "/metrics", token=TOKEN).status == 200
        # the probes stay open to whoever asks
        assert http.call("GET", "/healthz").status == 200 and http.call("GET", "/readyz").status == 200
        http.close()
    finally:
        api.stop()
