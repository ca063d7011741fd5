"""GET /games/{id}/openspiel: a finished gin-rami game as OpenSpiel gin_rummy records (OPENSPIEL.md).

The game is dealt from an explicit deck and played over the API; the record's numbers are worked
out by hand from OpenSpiel's numbering (tests/unit/test_openspiel_convert.py says how). Every
answer is checked against openapi.yaml by the validating client.
"""

from __future__ import annotations

import pytest

from support.decks import build_deck
from support.problems import problem

SEATS2 = [{"name": "ann"}, {"name": "bob"}]
# seat 0 takes the upcard 4S and goes gin discarding QD; seat 1 melds 9H TH JH and keeps 46 points
GIN_DECK = build_deck("AS 2S 3S 4C 5C 6C 7H 7D 7C QD".split(), "2C 3C 9H 9D 9S TH JH KS 5D 8S".split(), "4S")
GIN_DEAL = [0, 1, 2, 16, 17, 18, 45, 32, 19, 37, 14, 15, 47, 34, 8, 48, 49, 12, 30, 7, 3]


def gin_game(api) -> str:
    made = api.post("/games", json={"variant": "gin-rami", "rules": "openspiel", "seats": SEATS2,
                                    "options": {"target_score": 1}, "decks": [GIN_DECK], "first_dealer": 1})
    assert made.status_code == 201, made.get_json()
    made = made.get_json()
    token = made["seats"][0]["token"]
    game_id = made["game_id"]
    assert api.post(f"/games/{game_id}/moves", json={"type": "take_upcard"}, token=token).status_code == 200
    resp = api.post(f"/games/{game_id}/moves", json={"type": "knock", "discard": "QD"}, token=token)
    assert resp.status_code == 200, resp.get_json()
    return game_id


def test_a_finished_game_gives_its_openspiel_record(api):
    game_id = gin_game(api)
    resp = api.get(f"/games/{game_id}/openspiel")
    assert resp.status_code == 200 and resp.headers["Content-Type"].startswith("application/json")
    record = resp.get_json()
    assert record["game_id"] == game_id and record["game"] == "gin_rummy"
    assert record["parameters"] == {"knock_card": 10, "gin_bonus": 25, "undercut_bonus": 25, "oklahoma": False}
    [hand] = record["hands"]
    # take (52), knock (55), discard QD (37), the three melds 165 135 86, pass; 9H TH JH (162), pass
    assert hand["actions"][:24] == GIN_DEAL + [52, 55, 37]
    assert set(hand["actions"][24:27]) == {165, 135, 86} and hand["actions"][27:] == [54, 162, 54]
    # gin: 25 + 46
    assert hand["returns"] == [71, -71] and hand["ginbox_points"] == [71, 0]


def test_a_game_in_play_has_no_record_yet(api):
    made = api.post("/games", json={"variant": "gin-rami", "rules": "openspiel", "seats": SEATS2}).get_json()
    resp = api.get(f"/games/{made['game_id']}/openspiel")
    problem(resp, 409, "game_not_over")


@pytest.mark.parametrize("body, code", [
    ({"variant": "three-hand", "seats": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}, "openspiel_variant"),
    ({"variant": "gin-rami", "seats": SEATS2}, "openspiel_rules_differ"),
])
def test_a_game_openspiel_cannot_play_is_refused(api, body, code):
    made = api.post("/games", json=body).get_json()
    resigned = api.post(f"/games/{made['game_id']}/moves", json={"type": "resign"}, token=made["seats"][0]["token"])
    assert resigned.status_code == 200
    resp = api.get(f"/games/{made['game_id']}/openspiel")
    problem(resp, 422, code)


def test_an_unknown_game_has_no_record(api):
    problem(api.get("/games/AAAAAAAAAAAAAAAA/openspiel"), 404, "game_not_found")
