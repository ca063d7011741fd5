"""A Hollywood game (RULES.md §5) of built-in bots, seated through the API and played to its end by a
real worker: the match ends only when all three games are over."""

from __future__ import annotations

import time

from service.rules import game as G
from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)


def test_a_hollywood_game_of_bots_is_played_until_its_three_games_are_over(app, client, workers):
    resp = client.post("/games", json={"variant": "gin-rami", "rules": "hollywood", "options": {"target_score": 30},
                                       "seats": [{"bot": "simple"}, {"bot": "basic"}]})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    game_id = resp.get_json()["game_id"]
    workers.start()
    end = time.monotonic() + 240
    while (view := client.get(f"/games/{game_id}").get_json())["status"] != "over":
        assert time.monotonic() < end, f"game stuck at version {view['version']}"
        time.sleep(0.2)
    assert view["end"]["reason"] == "target_score"
    games = view["hollywood"]["games"]
    assert all(g["over"] for g in games) and all(max(g["hand_points"]) >= 30 for g in games)
    assert view["scores"] == [sum(g["scores"][seat] for g in games) for seat in range(2)]
    # every won hand's record says where it went, and the stored log replays to the same state
    assert all("hollywood" in r for r in view["hand_results"] if r["outcome"] != "drawn")
    records = app.extensions["ginbox"].store.load(game_id)
    assert G.replay([r.event for r in records]).scores == view["scores"]
