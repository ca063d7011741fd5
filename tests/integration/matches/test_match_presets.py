"""Presets on POST /matches: ``"rules": NAME`` expands as on POST /games, and its games are created with it."""

from __future__ import annotations

from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)
from test_matches import check_recorded_from_the_games, wait_over

#: the eaai preset's options as RULES.md §5 lists them (a board plays one hand: target_score 1)
EAAI_BOARD = {"target_score": 1, "knock_limit": 10, "gin_bonus": 25, "big_gin_bonus": None,
              "gin_adds_deadwood": True, "undercut_bonus": 25, "box_bonus": 0, "game_bonus": 0,
              "shutout_bonus": 0, "shutout_doubles": False, "oklahoma": False}


def test_a_match_with_eaai_rules_creates_its_games_with_eaai_options_and_plays_them(app, client, workers):
    created = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "random"],
                                            "boards": 1, "rules": "eaai"})
    assert created.status_code == 201, created.get_data(as_text=True)
    match = created.get_json()
    assert match["rules"] == "eaai"
    workers.start()
    final = wait_over(client, match["match_id"])
    assert final["games_done"] == 2 and final["rules"] == "eaai"
    check_recorded_from_the_games(app, client, match["match_id"])
    assert client.get(f"/matches/{match['match_id']}/audit").get_json()["ok"]
    # a match's games are sealed while it runs: once it is over, each states the preset
    game_ids = [t["game_id"] for t in final["board_results"][0]["tables"]]
    assert len(game_ids) == 2
    for game_id in game_ids:
        game = client.get(f"/games/{game_id}").get_json()
        assert game["rules"] == "eaai"
        assert {k: game["options"][k] for k in EAAI_BOARD} == EAAI_BOARD
        first = client.get(f"/games/{game_id}/events").get_json()["events"][0]
        assert first["data"]["rules"] == "eaai"


def game_state(app, game_id: str):
    """A game's state as the store holds it (a running match's games are sealed to the API)."""
    return app.extensions["ginbox"].arena.games.state(game_id)


def test_a_match_option_overrides_its_preset(app, client):
    created = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "random"],
                                            "boards": 1, "rules": "eaai", "options": {"knock_limit": 7}})
    assert created.status_code == 201, created.get_data(as_text=True)
    table = created.get_json()["board_results"][0]["tables"][0]
    state = game_state(app, table["game_id"])
    options = state.options
    assert state.rules == "eaai"
    assert (options["knock_limit"], options["undercut_bonus"], options["gin_bonus"]) == (7, 25, 25)


def test_a_match_without_rules_states_none(app, client):
    match = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "random"],
                                          "boards": 1}).get_json()
    assert match["rules"] is None
    assert game_state(app, match["board_results"][0]["tables"][0]["game_id"]).rules is None


def test_bad_presets_are_refused_with_the_codes_of_post_games_and_create_nothing(client):
    base = {"variant": "gin-rami", "participants": ["basic", "random"], "boards": 2}
    cases = [
        ({**base, "rules": "nope"}, 422, "unknown_rules"),
        ({**base, "rules": "oklahoma", "options": {"knock_limit": 5}}, 422, "rules_conflict"),
        ({**base, "variant": "three-hand", "participants": ["basic", "random", "expert"], "rules": "eaai"}, 422,
         "rules_not_for_variant"),
        ({**base, "rules": ""}, 400, "invalid_body"),
        ({**base, "rules": 7}, 400, "invalid_body"),
    ]
    for body, status, code in cases:
        resp = client.post("/matches", json=body)
        assert (resp.status_code, resp.get_json()["code"]) == (status, code), body
        assert resp.headers["Content-Type"].startswith("application/problem+json")
    # the same request on POST /games is refused with the same code
    game = client.post("/games", json={"variant": "gin-rami", "rules": "oklahoma", "options": {"knock_limit": 5},
                                       "seats": [{"bot": "basic"}, {"bot": "random"}]})
    assert game.get_json()["code"] == "rules_conflict"
    assert client.get("/matches").get_json()["matches"] == []
