"""workers/outside_bot.py works melds and deadwood out from the view itself (it asked ``POST
/analysis/melds`` once or twice a move): on the same views it plays the same moves as when it
asked the server. Real games of both variants, every decision of every seat compared."""

from __future__ import annotations

import time

import pytest

from support.apiclient import ValidatingClient
from support.arena_fixtures import app, base, settings  # noqa: F401 (fixtures)
from workers import outside_bot
from workers.outside_bot import VALUES, Api


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def choose_before(api: Api, view: dict) -> dict:
    """The outside bot's choice as it was made before: melds and deadwood asked of the server."""
    moves = view["legal_moves"]
    types = {m["type"] for m in moves}
    hand = view["hand"]

    def melds(cards):
        status, doc = api.call("POST", "/analysis/melds", {"cards": cards})
        assert status == 200, doc
        return doc

    knocks = [m for m in moves if m["type"] == "knock"]
    if knocks:
        if any(m["discard"] is None for m in knocks):
            return {"type": "knock", "discard": None}
        best = {d["card"]: d["deadwood"] for d in melds(hand)["knock_discards"]}
        return min(knocks, key=lambda m: (best.get(m["discard"], 99), m["discard"]))
    if "take_upcard" in types or "draw_discard" in types:
        top = view["discard_top"]
        now = melds(hand)["deadwood"]
        after = melds(hand + [top])["deadwood_after_discard"]
        if after < now:
            return {"type": "take_upcard"} if "take_upcard" in types else {"type": "draw_discard"}
        return {"type": "pass_upcard"} if "pass_upcard" in types else {"type": "draw_stock"}
    if "draw_stock" in types:
        return {"type": "draw_stock"}
    discards = [m for m in moves if m["type"] == "discard"]
    unmatched = set(melds(hand)["deadwood_cards"])
    return max(discards, key=lambda m: (m["card"] in unmatched, VALUES[m["card"][0]], m["card"]))


# slow: five whole games of each variant, every decision worked out twice (about 13 s each)
@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("variant, players", [("gin-rami", 2), ("three-hand", 3)])
def test_the_bot_plays_the_same_moves_as_when_it_asked_the_server(app, base, variant, players):  # noqa: F811
    client = app.test_client()  # many requests: the answers' shapes are checked elsewhere
    calculator = Api(base, "", "", time.monotonic() + 600)
    kinds: dict[str, int] = {}
    for game in range(5):
        created = ValidatingClient(app).post("/games", json={"variant": variant, "options": {"target_score": 60},
                                              "seats": [{"name": f"p{i}"} for i in range(players)]}).get_json()
        game_id, tokens = created["game_id"], [s["token"] for s in created["seats"]]
        view = created["view"]
        while view["status"] == "playing":
            for seat in view["to_act"]:
                mine = client.get(f"/games/{game_id}", headers=auth(tokens[seat])).get_json()
                if not mine["legal_moves"]:
                    continue
                move = outside_bot.choose(mine)
                assert move == choose_before(calculator, mine), mine
                kinds[move["type"]] = kinds.get(move["type"], 0) + 1
                played = client.post(f"/games/{game_id}/moves", json=move,
                                     headers={**auth(tokens[seat]), "If-Match": f'"{mine["version"]}"'})
                assert played.status_code == 200, played.get_json()
                break
            view = client.get(f"/games/{game_id}").get_json()
    # every kind of choice was compared, knocks and the draws from the pile among them
    assert {"knock", "discard", "draw_stock", "draw_discard", "pass_upcard"} <= set(kinds), kinds
