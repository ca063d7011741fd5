"""A walk through the HTTP API on real Redis, every exchange validated against openapi.yaml."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from support.apiclient import ValidatingClient, load_openapi, make_app

ROOT = Path(__file__).resolve().parents[3]
HTTP_METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture
def game(api):
    """A gin-rami game with two human seats: (game id, {seat: token}, creation answer)."""
    resp = api.post("/games", json={"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
    assert resp.status_code == 201
    body = resp.get_json()
    assert resp.headers["Location"] == f"/games/{body['game_id']}"
    tokens = {s["seat"]: s["token"] for s in body["seats"]}
    return body["game_id"], tokens, body


def _version(tag: str) -> int:
    """The version an ETag names: ``"<version>"`` or a view's ``"<version>-<digest>"``."""
    return int(tag.strip('"').partition("-")[0])


def _to_act(api, game_id, tokens):
    """(seat to act, its view, its ETag: the view's own, which If-Match takes too) of a two-human game."""
    spectator = api.get(f"/games/{game_id}").get_json()
    seat = spectator["to_act"][0]
    resp = api.get(f"/games/{game_id}", token=tokens[seat])
    return seat, resp.get_json(), resp.headers["ETag"]


def _plain_move(view):
    """The first legal move that is not a knock (so the hand goes on)."""
    return next(m for m in view["legal_moves"] if m["type"] != "knock")


def test_flask_routes_and_spec_operations_are_the_same_set(api_app):
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    in_spec = {(path, m) for path, item in spec["paths"].items() for m in item if m in HTTP_METHODS}
    in_app = set()
    for rule in api_app.url_map.iter_rules():
        path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)
        in_app |= {(path, m.lower()) for m in rule.methods if m.lower() in HTTP_METHODS}
    assert in_app == in_spec


def test_packaged_spec_is_the_top_level_spec_and_is_served(api):
    top = (ROOT / "openapi.yaml").read_text()
    assert (ROOT / "service" / "openapi.yaml").read_text() == top
    resp = api.get("/openapi.yaml")
    assert resp.status_code == 200 and resp.get_data(as_text=True) == top


def test_docs_page_and_its_assets_are_served_locally(api):
    page = api.get("/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assets = re.findall(r'(?:src|href)="/?(docs/[^"]+)"', html)
    assert {"docs/docs.js", "docs/swagger-ui-bundle.js", "docs/swagger-ui.css"} <= set(assets)
    assert "http://" not in html and "https://" not in html  # nothing fetched from elsewhere
    for asset in assets:
        resp = api.get("/" + asset)
        assert resp.status_code == 200 and len(resp.get_data()) > 0
    assert api.get("/docs/nothing.js").status_code == 404


def test_event_types_in_the_spec_are_the_engines(api):
    from service.rules import events

    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    assert set(spec["components"]["schemas"]["EventType"]["enum"]) == {c.TYPE for c in events.EVENT_CLASSES}


def test_two_humans_see_their_own_hands_and_play_legal_moves(api, game):
    game_id, tokens, created = game
    assert created["view"]["hand"] is None  # the creation answer shows the spectator's view
    hands = {}
    for seat in (0, 1):
        view = api.get(f"/games/{game_id}", token=tokens[seat]).get_json()
        assert view["viewer"] == seat and len(view["hand"]) == 10
        hands[seat] = set(view["hand"])
    assert not hands[0] & hands[1]
    assert api.get(f"/games/{game_id}").get_json()["hand"] is None

    for _ in range(8):
        seat, view, tag = _to_act(api, game_id, tokens)
        resp = api.post(f"/games/{game_id}/moves", json=_plain_move(view), token=tokens[seat],
                        headers={"If-Match": tag})
        assert resp.status_code == 200, resp.get_json()
        assert resp.headers["ETag"] == f'"{resp.get_json()["version"]}"'
        assert _version(tag) < resp.get_json()["version"]

    # the opponent's move is refused by the engine (409) and changes nothing
    seat, view, tag = _to_act(api, game_id, tokens)
    other = 1 - seat
    resp = api.post(f"/games/{game_id}/moves", json={"type": "draw_stock"}, token=tokens[other])
    assert resp.status_code == 409 and resp.get_json()["code"] == "not_your_turn"
    assert api.get(f"/games/{game_id}", token=tokens[seat]).headers["ETag"] == tag


def test_events_are_redacted_per_seat_and_state_travels_in_time(api, game):
    game_id, tokens, _ = game
    for _ in range(4):
        seat, view, _tag = _to_act(api, game_id, tokens)
        api.post(f"/games/{game_id}/moves", json=_plain_move(view), token=tokens[seat])
    for seat in (0, 1):
        body = api.get(f"/games/{game_id}/events", token=tokens[seat]).get_json()
        assert body["next_after"] is None
        assert [e["version"] for e in body["events"]] == sorted(e["version"] for e in body["events"])
        created = body["events"][0]
        assert created["type"] == "game_created" and created["data"]["seed"] is None
        for e in body["events"]:
            if e["type"] == "card_drawn" and e["data"]["source"] == "stock":
                # a stock draw shows its card only to the seat that drew it
                assert (e["data"]["card"] is not None) == (e["data"]["seat"] == seat)
    page = api.get(f"/games/{game_id}/events", query_string={"after": 1, "limit": 2}).get_json()
    assert page["next_after"] == 3 and all(1 < e["version"] <= 3 for e in page["events"])

    now = api.get(f"/games/{game_id}").get_json()["version"]
    past = api.get(f"/games/{game_id}/state", query_string={"version": 1}, token=tokens[0]).get_json()
    assert past["version"] == 1 and past["hand_no"] == 0 and past["status"] == "waiting"
    assert api.get(f"/games/{game_id}/state", query_string={"version": now + 1}).status_code == 404
    assert api.get(f"/games/{game_id}/state", query_string={"version": 0}).status_code == 422


def test_if_match_and_idempotency_key(api, game):
    game_id, tokens, _ = game
    seat, view, tag = _to_act(api, game_id, tokens)
    move = _plain_move(view)
    stale = f'"{_version(tag) - 1}"'
    resp = api.post(f"/games/{game_id}/moves", json=move, token=tokens[seat], headers={"If-Match": stale})
    assert resp.status_code == 412 and resp.get_json()["code"] == "version_mismatch"

    key = {"Idempotency-Key": "move-1"}
    first = api.post(f"/games/{game_id}/moves", json=move, token=tokens[seat], headers=key)
    again = api.post(f"/games/{game_id}/moves", json=move, token=tokens[seat], headers=key)
    assert first.status_code == again.status_code == 200
    assert first.get_json() == again.get_json() and first.headers["ETag"] == again.headers["ETag"]
    # another body under the same key is refused before the engine even looks at it
    other = {"type": "draw_stock"} if move != {"type": "draw_stock"} else {"type": "draw_discard"}
    resp = api.post(f"/games/{game_id}/moves", json=other, token=tokens[seat], headers=key)
    assert resp.status_code == 422 and resp.get_json()["code"] == "idempotency_key_reused"
    # the replay recorded nothing new
    assert _version(api.get(f"/games/{game_id}").headers["ETag"]) == _version(first.headers["ETag"])


def test_open_seat_is_claimed_once(api):
    body = api.post("/games", json={"variant": "gin-rami", "seats": [{"name": "ann"}, None]}).get_json()
    game_id = body["game_id"]
    assert body["view"]["status"] == "waiting" and [s["kind"] for s in body["seats"]] == ["human", "open"]
    resp = api.post(f"/games/{game_id}/seats/1", json={"name": "cat"})
    assert resp.status_code == 201
    claimed = resp.get_json()
    assert claimed["view"]["status"] == "playing" and len(claimed["view"]["hand"]) == 10
    assert api.get(f"/games/{game_id}", token=claimed["token"]).get_json()["viewer"] == 1
    again = api.post(f"/games/{game_id}/seats/1", json={"name": "dan"})
    assert again.status_code == 409 and again.get_json()["code"] == "seat_taken"
    assert api.post(f"/games/{game_id}/seats/2", json={"name": "eve"}).get_json()["code"] == "seat_not_found"


def test_errors_are_problem_documents(api, game):
    game_id, tokens, _ = game
    cases = [
        (api.get("/games/AAAAAAAAAAAAAAAA"), 404, "game_not_found"),
        (api.post("/games", json={"variant": "gin-rami", "seats": [None, None], "colour": "red"}), 400, "invalid_body"),
        (api.post("/games", data="{not json", content_type="application/json"), 400, "invalid_json"),
        (api.post("/games", data="variant=gin-rami", content_type="text/plain"), 415, "unsupported_media_type"),
        (api.post(f"/games/{game_id}/moves", json={"type": "draw_stock"}), 401, "unauthorized"),
        (api.post(f"/games/{game_id}/moves", json={"type": "draw_stock"}, token="not-a-token"), 401, "unauthorized"),
        (api.post(f"/games/{game_id}/moves", json={"type": "discard", "card": "ZZ"}, token=tokens[0]), 400, "invalid_body"),
        (api.get(f"/games/{game_id}/audit"), 409, "game_not_over"),
        (api.get(f"/games/{game_id}/export"), 409, "game_not_over"),
        (api.post(f"/games/{game_id}/advice", json={"text": "hi"}, token=tokens[0]), 409, "not_advisor"),
        (api.delete(f"/games/{game_id}"), 405, "method_not_allowed"),
        (api.get("/nowhere"), 404, "not_found"),
    ]
    for resp, status, code in cases:
        assert (resp.status_code, resp.get_json()["code"]) == (status, code)
    invalid = api.post("/games", json={"variant": "gin-rami", "seats": [None, None], "colour": "red"}).get_json()
    assert "colour" in invalid["errors"]


def test_body_over_the_limit_is_413(redis_url, key_prefix):
    api = ValidatingClient(make_app(redis_url, key_prefix, max_body_bytes=200), load_openapi())
    resp = api.post("/analysis/melds", json={"cards": ["AS"] * 100})
    assert resp.status_code == 413 and resp.get_json()["code"] == "body_too_large"


def test_rate_limit_answers_429_with_retry_after(redis_url, key_prefix):
    from service.app import create_app
    from service.config import Settings

    app = create_app(Settings(redis_url=redis_url, key_prefix=key_prefix, rate_limit_per_minute=3))
    api = ValidatingClient(app, load_openapi())
    statuses = [api.get("/games").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    resp = api.get("/games")
    assert 1 <= int(resp.headers["Retry-After"]) <= 60 and resp.get_json()["code"] == "rate_limited"
    assert api.get("/healthz").status_code == 200  # probes are never limited


def test_list_games_pages_with_link_header(api):
    ids = [api.post("/games", json={"variant": "gin-rami", "seats": [None, None]}).get_json()["game_id"]
           for _ in range(3)]
    first = api.get("/games", query_string={"limit": 2, "status": "waiting"})
    assert first.status_code == 200
    body = first.get_json()
    assert [g["game_id"] for g in body["games"]] == ids[::-1][:2]
    assert body["next_cursor"] and 'rel="next"' in first.headers["Link"]
    link = re.match(r"<([^>]+)>", first.headers["Link"]).group(1)
    rest = api.get(link).get_json()
    assert [g["game_id"] for g in rest["games"]] == ids[:1] and rest["next_cursor"] is None


def test_stream_once_replays_the_callers_events(api, game):
    game_id, tokens, _ = game
    resp = api.get(f"/games/{game_id}/stream", query_string={"once": "1"}, token=tokens[0])
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    text = resp.get_data(as_text=True)
    ids = [int(x) for x in re.findall(r"^id: (\d+)$", text, re.M)]
    version = api.get(f"/games/{game_id}").get_json()["version"]
    assert ids == list(range(1, version + 1))
    data = [json.loads(x) for x in re.findall(r"^data: (.*)$", text, re.M)]
    dealt = next(d for d in data if d["type"] == "hand_dealt")
    assert dealt["data"]["deck"] is None and dealt["data"]["hand_owner"] == 0
    resumed = api.get(f"/games/{game_id}/stream", query_string={"once": "1"}, token=tokens[0],
                      headers={"Last-Event-ID": str(version - 1)}).get_data(as_text=True)
    assert re.findall(r"^id: (\d+)$", resumed, re.M) == [str(version)]


def test_meld_calculator(api):
    resp = api.post("/analysis/melds", json={"cards": ["7C", "7D", "7H", "8S", "9S", "TS", "KD", "2C", "AS", "AH", "QH"]})
    assert resp.status_code == 200
    body = resp.get_json()
    # 7C 7D 7H and 8S 9S TS are melds; deadwood KD 10 + 2C 2 + AS 1 + AH 1 + QH 10 = 24
    assert body["deadwood"] == 24
    # discarding a ten-point card (KD or QH) leaves 24 - 10 = 14 > 10: no knock discard exists
    assert body["deadwood_after_discard"] == 14 and body["knock_discards"] == [] and body["gin_discards"] == []
