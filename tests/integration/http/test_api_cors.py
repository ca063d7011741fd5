"""Browsers may call the API from other origins: CORS preflights and readable answers."""

from __future__ import annotations

from support.apiclient import make_app
from support.gameplay import create_game

ORIGIN = "https://gin.example"
PREFLIGHT = {"Origin": ORIGIN, "Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "authorization, content-type, if-match, idempotency-key"}


def _header_set(value: str | None) -> set[str]:
    return {part.strip().lower() for part in (value or "").split(",") if part.strip()}


def test_a_preflight_for_a_move_is_answered_without_a_token_and_counts_for_no_limit(redis_url, key_prefix):
    client = make_app(redis_url, key_prefix, rate_limit_per_minute=3).test_client()
    for _ in range(5):  # more than the limit: preflights are not counted
        resp = client.options("/games/AAAAAAAAAAAAAAAA/moves", headers=PREFLIGHT)
        assert resp.status_code == 204 and resp.data == b"" and "Content-Type" not in resp.headers
    assert resp.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in resp.headers["Access-Control-Allow-Methods"]
    assert {"authorization", "content-type", "if-match", "idempotency-key"} <= _header_set(
        resp.headers["Access-Control-Allow-Headers"])
    assert int(resp.headers["Access-Control-Max-Age"]) > 0
    assert client.get("/games", headers={"Origin": ORIGIN}).status_code == 200


def test_answers_and_problems_are_readable_from_any_origin_with_their_headers(redis_url, key_prefix):
    app = make_app(redis_url, key_prefix)
    client = app.test_client()
    game = create_game(client, variant="gin-rami")
    seen = client.get(f"/games/{game.game_id}",
                      headers={"Origin": ORIGIN, "Authorization": f"Bearer {game.tokens[0]}"})
    assert seen.status_code == 200
    assert seen.headers["Access-Control-Allow-Origin"] == "*"
    assert {"etag", "x-request-id"} <= _header_set(seen.headers["Access-Control-Expose-Headers"])
    refused = client.get("/games/AAAAAAAAAAAAAAAA", headers={"Origin": ORIGIN})
    assert refused.status_code == 404 and refused.headers["Access-Control-Allow-Origin"] == "*"
    # a request without Origin (not from a browser page) gets no CORS headers
    assert "Access-Control-Allow-Origin" not in client.get("/games").headers


def test_an_options_request_that_is_not_a_preflight_is_still_405(redis_url, key_prefix):
    client = make_app(redis_url, key_prefix).test_client()
    resp = client.options("/games", headers={"Origin": ORIGIN})
    assert resp.status_code == 405 and resp.get_json()["code"] == "method_not_allowed"


def test_a_list_of_origins_admits_only_those(redis_url, key_prefix):
    client = make_app(redis_url, key_prefix, cors_origins=f"{ORIGIN}, https://other.example").test_client()
    ok = client.get("/games", headers={"Origin": ORIGIN})
    assert ok.headers["Access-Control-Allow-Origin"] == ORIGIN and "Origin" in ok.headers["Vary"]
    stranger = client.get("/games", headers={"Origin": "https://evil.example"})
    assert stranger.status_code == 200 and "Access-Control-Allow-Origin" not in stranger.headers
    assert "Origin" in stranger.headers["Vary"]
    assert client.options("/games", headers={**PREFLIGHT, "Origin": "https://evil.example"}).status_code == 405
    assert client.options("/games", headers=PREFLIGHT).status_code == 204


def test_an_empty_setting_turns_cors_off(redis_url, key_prefix):
    client = make_app(redis_url, key_prefix, cors_origins="").test_client()
    assert "Access-Control-Allow-Origin" not in client.get("/games", headers={"Origin": ORIGIN}).headers
    assert client.options("/games", headers=PREFLIGHT).status_code == 405


def test_every_header_a_browser_client_is_told_to_read_is_exposed(redis_url, key_prefix):
    """The API tour and openapi.yaml tell pages to read these: the next page's Link, a version's ETag,
    a new resource's Location, Retry-After, the 401 challenge and the request id."""
    client = make_app(redis_url, key_prefix).test_client()
    for _ in range(2):
        create_game(client, variant="gin-rami")
    page = client.get("/games?limit=1", headers={"Origin": ORIGIN})
    assert page.status_code == 200 and 'rel="next"' in page.headers["Link"]
    exposed = _header_set(page.headers["Access-Control-Expose-Headers"])
    assert {"link", "etag", "location", "retry-after", "www-authenticate", "x-request-id"} <= exposed
    # each of them, where an answer carries it, is one the page may read
    for resp in (page, client.post("/games", json={"variant": "gin-rami", "seats": [{"name": "a"}, {"name": "b"}]},
                                   headers={"Origin": ORIGIN})):
        carried = {h.lower() for h in resp.headers.keys()} & {"link", "etag", "location", "x-request-id"}
        assert carried and carried <= _header_set(resp.headers["Access-Control-Expose-Headers"])
