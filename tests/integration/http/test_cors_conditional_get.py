"""A page on another origin can poll a view conditionally: its preflight for a GET that sends
If-None-Match (with Authorization) is granted, and the 304 it then gets is readable, with its ETag."""

from __future__ import annotations

from support.apiclient import make_app
from support.gameplay import create_game

ORIGIN = "https://gin.example"


def _header_set(value: str | None) -> set[str]:
    return {part.strip().lower() for part in (value or "").split(",") if part.strip()}


def test_a_preflight_for_a_conditional_get_allows_if_none_match(redis_url, key_prefix):
    client = make_app(redis_url, key_prefix).test_client()
    preflight = client.options("/games/AAAAAAAAAAAAAAAA", headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "authorization, if-none-match"})
    assert preflight.status_code == 204
    # a browser sends the GET only if every header it asked about is allowed
    assert {"authorization", "if-none-match"} <= _header_set(preflight.headers["Access-Control-Allow-Headers"])


def test_the_304_of_a_cross_origin_poll_is_readable_with_its_etag(redis_url, key_prefix):
    client = make_app(redis_url, key_prefix).test_client()
    game = create_game(client, variant="gin-rami")
    headers = {"Origin": ORIGIN, "Authorization": f"Bearer {game.tokens[0]}"}
    first = client.get(f"/games/{game.game_id}", headers=headers)
    assert first.status_code == 200
    again = client.get(f"/games/{game.game_id}", headers={**headers, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""
    assert again.headers["Access-Control-Allow-Origin"] == "*"
    assert again.headers["ETag"] == first.headers["ETag"]
    assert "etag" in _header_set(again.headers["Access-Control-Expose-Headers"])
