"""The reference player ``simple`` (RULES.md §5) seated through the API and played by a real worker."""

from __future__ import annotations

import time

from service.rules import game as G
from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)


def test_a_game_of_simple_under_the_eaai_rules_is_played_to_its_end_by_the_worker(app, client, workers):
    resp = client.post("/games", json={"variant": "gin-rami", "rules": "eaai", "options": {"target_score": 30},
                                       "seats": [{"bot": "simple"}, {"bot": "basic"}]})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    game_id = resp.get_json()["game_id"]
    workers.start()
    end = time.monotonic() + 240
    while (view := client.get(f"/games/{game_id}").get_json())["status"] != "over":
        assert time.monotonic() < end, f"game stuck at version {view['version']}"
        time.sleep(0.2)
    assert [p["bot"] for p in view["players"]] == ["simple", "basic"]
    # the preset's scoring with the target given over it: a player reached 30
    assert view["options"]["undercut_bonus"] == 25 and max(view["scores"]) >= 30
    # the stored log replays to the same scores
    records = app.extensions["ginbox"].store.load(game_id)
    assert G.replay([r.event for r in records]).scores == view["scores"]
