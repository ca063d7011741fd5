"""GET /healthz and /readyz against a real Redis, and /readyz with Redis gone."""

from service.app import create_app
from service.config import Settings
from service.redis_process import free_port
from support.apiclient import ValidatingClient


def test_healthz_and_readyz_answer_200_when_redis_is_up(redis_url):
    app = create_app(Settings(redis_url=redis_url))
    client = ValidatingClient(app)
    assert client.get("/healthz").get_json() == {"status": "ok"}
    resp = client.get("/readyz")
    assert resp.status_code == 200
    # the test's Redis has no maxmemory: no memory to report, and new games are taken
    assert resp.get_json() == {"status": "ready", "new_games": True}


def test_readyz_answers_503_problem_when_redis_is_unreachable():
    # a port nobody listens on: the connection is refused at once
    app = create_app(Settings(redis_url=f"redis://127.0.0.1:{free_port()}/0", redis_timeout_s=0.5))
    resp = ValidatingClient(app).get("/readyz")
    assert resp.status_code == 503
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    assert body["code"] == "redis_unavailable" and body["status"] == 503
