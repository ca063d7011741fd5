"""POST /games with Hollywood (RULES.md §5): the view, the score sheet and the export show the three
games; three-hand refuses it and creates nothing."""

from __future__ import annotations

import json

import pytest

SEATS2 = [{"name": "ann"}, {"name": "bob"}]
SEATS3 = [{"name": "ann"}, {"name": "bob"}, {"name": "cat"}]

# P_KNOCK of the rules tests: the non-dealer (seat 1, seat 0 dealing first) draws 2D and knocks
# discarding 9H: K = 2; the defender lays off down to KH KS 9C = 29: the knocker scores 27.
KNOCKER = "AC 2C 3C 7D 7H 7S 4S 5S 6S 9H".split()
DEFENDER = "2S 3S 4C 7C QD QH QS KH KS 9C".split()
DECK = ([c for pair in zip(KNOCKER, DEFENDER) for c in pair] + ["JC", "2D"])
DECK += [r + s for s in "CDHS" for r in "A23456789TJQK" if r + s not in DECK]


def game_count(api) -> int:
    return len(api.get("/games").get_json()["games"])


def test_a_hollywood_game_shows_its_three_games_in_the_view_the_sheet_and_the_export(api):
    """The hollywood preset (standard: box 25, game 100, shutouts doubled), target 20. Hand 1:
    bob (seat 1) knocks and scores 27, his 1st win: game 1 only, which he reaches 20 in: over,
    and ann has no hand in it: (27 + 25 + 100) x 2 = 304. Games 2 and 3 are still 0-0."""
    made = api.post("/games", json={"variant": "gin-rami", "rules": "hollywood", "seats": SEATS2,
                                    "options": {"target_score": 20}, "first_dealer": 0,
                                    "decks": [DECK, DECK]})
    assert made.status_code == 201, made.get_data(as_text=True)
    game_id, tokens = made.get_json()["game_id"], [s["token"] for s in made.get_json()["seats"]]
    view = made.get_json()["view"]
    assert view["options"]["hollywood"] is True and view["bonuses"] is None
    assert [g["scores"] for g in view["hollywood"]["games"]] == [[0, 0]] * 3
    assert view["hollywood"]["next_win_enters"] == [[1], [1]]
    for seat, move in ((1, {"type": "pass_upcard"}), (0, {"type": "pass_upcard"}), (1, {"type": "draw_stock"}),
                       (1, {"type": "knock", "discard": "9H"})):
        resp = api.post(f"/games/{game_id}/moves", json=move, token=tokens[seat])
        assert resp.status_code == 200, resp.get_data(as_text=True)
    view = api.get(f"/games/{game_id}").get_json()
    assert view["status"] == "playing" and view["scores"] == [0, 304]
    g1, g2, g3 = view["hollywood"]["games"]
    assert (g1["over"], g1["winner"], g1["scores"], g1["bonuses"]["shutout_doubling"]) == (True, 1, [0, 304], [0, 152])
    assert g2["scores"] == g3["scores"] == [0, 0] and not g2["over"]
    assert view["last_hand"]["hollywood"] == {"entered": [1], "scores": [[0, 304], [0, 0], [0, 0]], "ended": [1]}
    assert view["hollywood"]["next_win_enters"] == [[], [2]]
    # the export, once the game is over (ann resigns): the hand's and the end's records of the games
    assert api.post(f"/games/{game_id}/moves", json={"type": "resign"}, token=tokens[0]).status_code == 200
    resp = api.get(f"/games/{game_id}/export")
    assert resp.status_code == 200, resp.get_data(as_text=True)[:300]
    lines = [json.loads(x) for x in resp.get_data(as_text=True).splitlines()]
    scored = next(x for x in lines if x.get("type") == "hand_scored")
    assert scored["data"]["hollywood"]["entered"] == [1] and scored["data"]["scores"] == [0, 304]
    assert scored["data"]["hollywood"]["games"][0]["winner"] == 1
    assert api.get(f"/games/{game_id}/audit").get_json()["ok"]


@pytest.mark.parametrize("body, status, code", [
    ({"variant": "three-hand", "seats": SEATS3, "options": {"hollywood": True}}, 422, "option_not_for_variant"),
    ({"variant": "three-hand", "seats": SEATS3, "rules": "box-gin", "options": {"hollywood": True}}, 422,
     "option_not_for_variant"),
    ({"variant": "three-hand", "seats": SEATS3, "rules": "hollywood"}, 422, "rules_not_for_variant"),
    ({"variant": "gin-rami", "seats": SEATS2, "options": {"hollywood": "yes"}}, 400, "invalid_body"),
])
def test_hollywood_where_it_cannot_be_played_is_refused_and_creates_nothing(api, body, status, code):
    before = game_count(api)
    resp = api.post("/games", json=body)
    assert (resp.status_code, resp.get_json()["code"]) == (status, code)
    assert resp.headers["Content-Type"].startswith("application/problem+json")
    assert game_count(api) == before
