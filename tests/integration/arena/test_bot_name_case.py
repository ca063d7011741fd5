"""A bot account's name is taken in any case at registration, so any case names the account
everywhere else (its profile, a seat, a match, a challenge) and answers spell it as registered; a
person's name in a challenge is told from the participants' in any case too. A bot challenging is
known by its token: a person's `name` beside it is refused, not dropped.
"""

from __future__ import annotations

from support.gameplay import create_game
from support.problems import problem


def register(api, name: str) -> str:
    resp = api.post("/bots", json={"name": name})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["token"]


def test_the_profile_of_a_bot_is_found_in_any_case_and_shows_its_registered_name(api):
    register(api, "alpha")
    for asked in ("ALPHA", "Alpha", "alpha"):
        resp = api.get(f"/bots/{asked}")
        assert resp.status_code == 200, asked
        assert resp.get_json()["name"] == "alpha"
    problem(api.get("/bots/alphaa"), 404, "bot_not_found")


def test_a_seat_names_a_bot_account_in_any_case_and_it_plays_the_seat_under_its_own_name(api):
    alpha = register(api, "alpha")
    # alpha lets anyone seat it (a game seats a bot account only with its consent)
    assert api.patch("/bots/me", json={"accepts_matches": True}, token=alpha).status_code == 200
    g = create_game(api, "gin-rami", [{"account": "ALPHA"}, {"name": "ann"}])
    assert g.created["seats"][0] == {"seat": 0, "name": "alpha", "kind": "account", "account": "alpha"}
    view = api.get(f"/games/{g.game_id}", token=alpha)
    assert view.status_code == 200 and view.get_json()["viewer"] == 0
    assert api.get("/bots/alpha").get_json()["games"] == 1
    # the one account named twice, in two cases, is one account named twice
    body = {"variant": "gin-rami", "seats": [{"account": "alpha"}, {"account": "ALPHA"}]}
    problem(api.post("/games", json=body), 422, "duplicate_participant")


def test_a_match_names_a_bot_account_in_any_case_and_twice_in_two_cases_is_twice(api):
    alpha = register(api, "alpha")
    made = api.post("/matches", json={"variant": "gin-rami", "participants": ["ALPHA", "basic"], "boards": 1},
                    token=alpha)
    assert made.status_code == 201, made.get_data(as_text=True)
    assert [p["name"] for p in made.get_json()["participants"]] == ["alpha", "basic"]
    assert api.get("/bots/alpha").get_json()["matches"] == 1
    twice = {"variant": "gin-rami", "participants": ["alpha", "ALPHA"], "boards": 1}
    problem(api.post("/matches", json=twice, token=alpha), 422, "duplicate_participant")


def test_a_challenge_names_bots_in_any_case_and_compares_a_persons_name_in_any_case(api):
    alpha, beta = register(api, "alpha"), register(api, "beta")
    made = api.post("/challenges", json={"to": "ALPHA", "variant": "gin-rami"}, token=beta)
    assert made.status_code == 201, made.get_data(as_text=True)
    assert made.get_json()["to"] == "alpha"
    # the challenged bot (its name as registered) answers it
    accepted = api.post(f"/challenges/{made.get_json()['challenge_id']}/accept", token=alpha)
    assert accepted.status_code == 200, accepted.get_data(as_text=True)
    api.patch("/bots/me", json={"accepts_matches": True}, token=beta)  # a bot in `with` consents so
    three = api.post("/challenges", json={"to": "Alpha", "variant": "three-hand", "with": ["BETA"], "name": "ann"})
    assert three.status_code == 201, three.get_data(as_text=True)
    assert (three.get_json()["to"], three.get_json()["with"]) == ("alpha", ["beta"])
    # a person named as a participant is in any case, as a bot's name is taken
    for body in ({"to": "alpha", "variant": "gin-rami", "name": "ALPHA"},
                 {"to": "ALPHA", "variant": "gin-rami", "name": "alpha"},
                 {"to": "alpha", "variant": "three-hand", "with": ["beta"], "name": "Beta"},
                 {"to": "alpha", "variant": "three-hand", "with": ["Basic"], "name": "basic"}):
        problem(api.post("/challenges", json=body), 422, "duplicate_participant")


def test_a_bot_challenging_with_a_persons_name_is_refused_naming_the_field(api):
    alpha, beta = register(api, "alpha"), register(api, "beta")
    body = problem(api.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "ann"}, token=beta),
                   422, "invalid_match")
    assert "`name`" in body["detail"]
    # nothing was stored: the challenged bot was told of no challenge
    assert "event:" not in api.get("/bots/me/stream?once=1", token=alpha).get_data(as_text=True)
