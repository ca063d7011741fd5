"""POST /games with ``rules``: a preset expands to its options, bad ones are refused (RULES.md §5 Presets)."""

from __future__ import annotations

import json

import pytest

SEATS2 = [{"name": "ann"}, {"name": "bob"}]


def game_count(api) -> int:
    return len(api.get("/games").get_json()["games"])


def test_a_preset_game_states_its_preset_and_options(api):
    resp = api.post("/games", json={"variant": "gin-rami", "rules": "standard", "seats": SEATS2,
                                    "options": {"target_score": 50}})
    assert resp.status_code == 201
    game_id = resp.get_json()["game_id"]
    view = api.get(f"/games/{game_id}").get_json()
    assert view["rules"] == "standard" and view["bonuses"] is None and view["knock_limit"] == 10
    # standard: gin 25 + deadwood, no big gin, undercut 25, box 25, game 100, shutout doubles;
    # the explicit target 50 overrides its 100
    options = view["options"]
    assert (options["gin_bonus"], options["gin_adds_deadwood"], options["big_gin_bonus"]) == (25, True, None)
    assert (options["undercut_bonus"], options["box_bonus"], options["game_bonus"]) == (25, 25, 100)
    assert options["shutout_doubles"] is True and options["target_score"] == 50


def test_an_oklahoma_game_shows_the_hands_knock_limit(api):
    resp = api.post("/games", json={"variant": "gin-rami", "rules": "oklahoma", "seats": SEATS2})
    assert resp.status_code == 201
    view = api.get(f"/games/{resp.get_json()['game_id']}").get_json()
    upcard = view["discard_top"]
    # A gin only; 2-9 their value; T J Q K 10
    expected = 0 if upcard[0] == "A" else 10 if upcard[0] in "TJQK" else int(upcard[0])
    assert view["options"]["knock_limit"] is None and view["knock_limit"] == expected


def test_the_export_records_the_preset(api):
    made = api.post("/games", json={"variant": "three-hand", "rules": "box-gin",
                                    "seats": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}).get_json()
    game_id = made["game_id"]
    # the export is given once the game is over: seat 0 resigns
    resigned = api.post(f"/games/{game_id}/moves", json={"type": "resign"}, token=made["seats"][0]["token"])
    assert resigned.status_code == 200
    resp = api.get(f"/games/{game_id}/export")
    assert resp.status_code == 200, resp.get_data(as_text=True)[:300]
    lines = [json.loads(x) for x in resp.get_data(as_text=True).splitlines()]
    created = next(x for x in lines if x.get("type") == "game_created")
    assert created["data"]["rules"] == "box-gin" and created["data"]["options"]["gin_bonus"] == 25


@pytest.mark.parametrize("body, code", [
    ({"variant": "gin-rami", "rules": "Hollywood"}, "unknown_rules"),
    ({"variant": "gin-rami", "rules": "box-gin"}, "rules_not_for_variant"),
    ({"variant": "gin-rami", "rules": "oklahoma", "options": {"knock_limit": 5}}, "rules_conflict"),
    ({"variant": "gin-rami", "options": {"oklahoma": True, "knock_limit": 5}}, "invalid_option"),
])
def test_bad_rules_are_refused_and_create_nothing(api, body, code):
    before = game_count(api)
    resp = api.post("/games", json={**body, "seats": SEATS2})
    assert resp.status_code == 422
    assert resp.headers["Content-Type"].startswith("application/problem+json")
    assert resp.get_json()["code"] == code
    assert game_count(api) == before
