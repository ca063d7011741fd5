"""Presets on POST /challenges: ``"rules": NAME`` expands as on POST /games, and its game or match is created with it."""

from __future__ import annotations

#: the oklahoma preset's options as RULES.md §5 lists them
OKLAHOMA = {"target_score": 150, "knock_limit": None, "oklahoma": True, "oklahoma_spades_double": True,
            "gin_bonus": 25, "undercut_bonus": 25, "box_bonus": 25, "game_bonus": 100, "shutout_doubles": True}


def register(api, name: str) -> str:
    resp = api.post("/bots", json={"name": name})
    assert resp.status_code == 201
    return resp.get_json()["token"]


def test_an_accepted_oklahoma_challenge_makes_a_game_that_states_the_preset(api):
    alpha = register(api, "alpha")
    made = api.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "ann", "rules": "oklahoma"})
    assert made.status_code == 201, made.get_data(as_text=True)
    challenge = made.get_json()
    assert challenge["rules"] == "oklahoma"
    assert api.get(f"/challenges/{challenge['challenge_id']}").get_json()["rules"] == "oklahoma"
    game_id = api.post(f"/challenges/{challenge['challenge_id']}/accept", token=alpha).get_json()["game_id"]
    game = api.get(f"/games/{game_id}", token=challenge["token"]).get_json()
    assert game["rules"] == "oklahoma"
    assert {k: game["options"][k] for k in OKLAHOMA} == OKLAHOMA
    # the export states it as a game created with POST /games does: the first event records it
    first = api.get(f"/games/{game_id}/events").get_json()["events"][0]
    assert first["data"]["rules"] == "oklahoma"


def test_an_accepted_match_challenge_with_a_preset_creates_its_games_with_it(api, api_app):
    alpha, beta = register(api, "alpha"), register(api, "beta")
    made = api.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "boards": 1, "rules": "eaai",
                                         "options": {"undercut_bonus": 20}}, token=beta).get_json()
    match_id = api.post(f"/challenges/{made['challenge_id']}/accept", token=alpha).get_json()["match_id"]
    match = api.get(f"/matches/{match_id}").get_json()
    assert match["rules"] == "eaai"
    # (a running match's games are sealed to the API: the store shows them)
    game = api_app.extensions["ginbox"].arena.games.state(match["board_results"][0]["tables"][0]["game_id"])
    assert game.rules == "eaai"
    assert (game.options["knock_limit"], game.options["gin_bonus"], game.options["undercut_bonus"],
            game.options["target_score"]) == (10, 25, 20, 1)


def test_bad_presets_are_refused_with_the_codes_of_post_games_and_create_nothing(api, api_app):
    alpha, beta = register(api, "alpha"), register(api, "beta")
    cases = [
        ({"to": "alpha", "variant": "gin-rami", "rules": "nope"}, beta, "unknown_rules"),
        ({"to": "alpha", "variant": "gin-rami", "name": "ann", "rules": "nope"}, None, "unknown_rules"),
        ({"to": "alpha", "variant": "gin-rami", "rules": "oklahoma", "options": {"knock_limit": 5}}, beta,
         "rules_conflict"),
        ({"to": "alpha", "variant": "gin-rami", "boards": 2, "rules": "oklahoma", "options": {"knock_limit": 5}},
         beta, "rules_conflict"),
        ({"to": "alpha", "variant": "three-hand", "with": ["basic"], "rules": "standard"}, beta,
         "rules_not_for_variant"),
    ]
    for body, token, code in cases:
        resp = api.post("/challenges", json=body, token=token)
        assert (resp.status_code, resp.get_json()["code"]) == (422, code), body
        assert resp.headers["Content-Type"].startswith("application/problem+json")
    assert "event:" not in api.get("/bots/me/stream?once=1", token=alpha).get_data(as_text=True)
    store = api_app.extensions["ginbox"].arena.store
    assert store.redis.hlen(store._k("challenges")) == 0
