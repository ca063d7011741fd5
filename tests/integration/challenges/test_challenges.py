"""Challenges: a bot or a person challenges a bot account; only that bot accepts or declines, once."""

from __future__ import annotations

import pytest


def register(api, name: str) -> str:
    resp = api.post("/bots", json={"name": name})
    assert resp.status_code == 201
    return resp.get_json()["token"]


def test_only_the_challenged_bot_answers_and_only_once(api):
    alpha, beta, gamma = register(api, "alpha"), register(api, "beta"), register(api, "gamma")
    made = api.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "boards": 2}, token=beta).get_json()
    assert made["kind"] == "match" and made["status"] == "pending" and made["from"] == "beta"
    cid = made["challenge_id"]
    wrong = api.post(f"/challenges/{cid}/accept", token=gamma)
    assert wrong.status_code == 403 and wrong.get_json()["code"] == "not_challenged"
    not_a_bot = api.post(f"/challenges/{cid}/accept")
    assert not_a_bot.status_code == 401 and not_a_bot.get_json()["code"] == "bot_token_required"
    assert api.get(f"/challenges/{cid}").get_json()["status"] == "pending"
    declined = api.post(f"/challenges/{cid}/decline", token=alpha).get_json()
    assert declined["status"] == "declined" and declined["match_id"] is None
    again = api.post(f"/challenges/{cid}/accept", token=alpha)
    assert again.status_code == 409 and again.get_json()["code"] == "challenge_not_pending"
    assert api.get("/matches").get_json()["matches"] == []


def test_an_accepted_match_challenge_starts_a_match_between_the_two_bots(api):
    alpha, beta = register(api, "alpha"), register(api, "beta")
    cid = api.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "boards": 3},
                   token=beta).get_json()["challenge_id"]
    accepted = api.post(f"/challenges/{cid}/accept", token=alpha).get_json()
    match = api.get(f"/matches/{accepted['match_id']}").get_json()
    assert [p["name"] for p in match["participants"]] == ["beta", "alpha"]
    assert match["boards"] == 3 and match["status"] == "running"


def test_a_person_challenges_to_a_game_and_plays_it_with_the_token_the_challenge_gave(api):
    alpha = register(api, "alpha")
    made = api.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "ann"}).get_json()
    assert made["from_kind"] == "person" and made["token"]
    assert "token" not in api.get(f"/challenges/{made['challenge_id']}").get_json()
    game_id = api.post(f"/challenges/{made['challenge_id']}/accept", token=alpha).get_json()["game_id"]
    view = api.get(f"/games/{game_id}", token=made["token"]).get_json()
    assert view["viewer"] == 0 and view["players"][0]["name"] == "ann"
    # nothing of the person's token hash is shown in the game
    assert "token_hash" not in str(api.get(f"/games/{game_id}/events").get_json())


def test_bad_challenges_are_refused_and_create_nothing(api, api_app):
    alpha, beta = register(api, "alpha"), register(api, "beta")
    cases = [
        ({"to": "nobody", "variant": "gin-rami"}, alpha, 404, "bot_not_found"),
        ({"to": "alpha", "variant": "gin-rami"}, alpha, 422, "invalid_match"),          # itself
        ({"to": "alpha", "variant": "gin-rami"}, None, 422, "invalid_match"),           # nobody named
        ({"to": "alpha", "variant": "gin-rami", "boards": 2}, None, 422, "invalid_match"),
        ({"to": "alpha", "variant": "gin-rami", "name": "alpha"}, None, 422, "duplicate_participant"),
        ({"to": "alpha", "variant": "gin-rami", "name": "alpha", "boards": 2}, None, 422, "duplicate_participant"),
        # three-hand names its third participant; gin-rami none
        ({"to": "alpha", "variant": "three-hand"}, beta, 422, "invalid_match"),
        ({"to": "alpha", "variant": "three-hand", "boards": 1, "name": "ann"}, None, 422, "invalid_match"),
        ({"to": "alpha", "variant": "gin-rami", "with": ["basic"]}, beta, 422, "invalid_match"),
        ({"to": "alpha", "variant": "gin-rami", "with": ["basic"], "name": "ann", "boards": 2}, None, 422,
         "invalid_match"),
        ({"to": "alpha", "variant": "three-hand", "with": ["basic", "random"]}, beta, 400, "invalid_body"),
        ({"to": "alpha", "variant": "three-hand", "with": ["nobody"]}, beta, 422, "unknown_participant"),
        ({"to": "alpha", "variant": "three-hand", "with": ["nobody"], "name": "ann", "boards": 1}, None, 422,
         "unknown_participant"),
        ({"to": "alpha", "variant": "three-hand", "with": ["alpha"]}, beta, 422, "duplicate_participant"),
        ({"to": "alpha", "variant": "three-hand", "with": ["beta"]}, beta, 422, "duplicate_participant"),
        ({"to": "alpha", "variant": "three-hand", "with": ["basic"], "name": "basic", "boards": 1}, None, 422,
         "duplicate_participant"),
        ({"to": "alpha", "variant": "gin-rami", "with": "basic"}, beta, 400, "invalid_body"),
        ({"to": "alpha", "variant": "gin-rami"}, "not-a-bot-token", 401, "bot_token_required"),
    ]
    for body, token, status, code in cases:
        resp = api.post("/challenges", json=body, token=token)
        assert (resp.status_code, resp.get_json()["code"]) == (status, code), body
        assert resp.headers["Content-Type"].startswith("application/problem+json")
    assert api.get("/bots/alpha").get_json()["games"] == 0
    resp = api.get("/bots/me/stream?once=1", token=alpha)
    assert "event:" not in resp.get_data(as_text=True)
    # no challenge was stored
    store = api_app.extensions["ginbox"].arena.store
    assert store.redis.hlen(store._k("challenges")) == 0


def test_a_three_hand_challenge_game_starts_with_the_named_third_participant(api):
    alpha, beta, gamma = register(api, "alpha"), register(api, "beta"), register(api, "gamma")
    # a bot account named in `with` is seated only if it accepts matches (the challenged bot alone answers)
    assert api.patch("/bots/me", json={"accepts_matches": True}, token=gamma).status_code == 200
    made = api.post("/challenges", json={"to": "alpha", "variant": "three-hand", "with": ["basic"]}, token=beta)
    assert made.status_code == 201 and made.get_json()["with"] == ["basic"]
    assert api.get(f"/challenges/{made.get_json()['challenge_id']}").get_json()["with"] == ["basic"]
    game_id = api.post(f"/challenges/{made.get_json()['challenge_id']}/accept", token=alpha).get_json()["game_id"]
    view = api.get(f"/games/{game_id}", token=alpha).get_json()
    assert view["variant"] == "three-hand" and view["status"] == "playing" and view["viewer"] == 1
    assert [p["name"] for p in view["players"]] == ["beta", "alpha", "basic"]
    # a person's three-hand game, the third seat a bot account: its token plays that seat
    person = api.post("/challenges", json={"to": "alpha", "variant": "three-hand", "name": "ann",
                                           "with": ["gamma"]}).get_json()
    game_id = api.post(f"/challenges/{person['challenge_id']}/accept", token=alpha).get_json()["game_id"]
    assert api.get(f"/games/{game_id}", token=person["token"]).get_json()["viewer"] == 0
    view = api.get(f"/games/{game_id}", token=gamma).get_json()
    assert view["viewer"] == 2 and [p["name"] for p in view["players"]] == ["ann", "alpha", "gamma"]
    assert "game_started" in api.get("/bots/me/stream?once=1", token=gamma).get_data(as_text=True)


def test_a_three_hand_match_challenge_seats_the_person_and_both_others_at_every_table(api):
    alpha = register(api, "alpha")
    made = api.post("/challenges", json={"to": "alpha", "variant": "three-hand", "name": "ann", "with": ["basic"],
                                         "boards": 1}).get_json()
    match_id = api.post(f"/challenges/{made['challenge_id']}/accept", token=alpha).get_json()["match_id"]
    match = api.get(f"/matches/{match_id}").get_json()
    assert match["participants"] == [{"name": "ann", "kind": "person"}, {"name": "alpha", "kind": "bot"},
                                     {"name": "basic", "kind": "policy"}]
    tables = match["board_results"][0]["tables"]
    assert len(tables) == 3 and all(sorted(t["seats"]) == ["alpha", "ann", "basic"] for t in tables)
    for table in tables:
        view = api.get(f"/games/{table['game_id']}", token=made["token"])
        assert view.status_code == 200 and view.get_json()["viewer"] == table["seats"].index("ann")
        assert view.get_json()["hand"] is not None
    assert {s["name"]: s["kind"] for s in match["standings"]} == {"ann": "person", "alpha": "bot", "basic": "policy"}
    # a bot's three-hand match challenge, the third participant another bot account: it is seated too
    beta, gamma = register(api, "beta"), register(api, "gamma")
    api.patch("/bots/me", json={"accepts_matches": True}, token=gamma)  # gamma takes on whoever asks
    cid = api.post("/challenges", json={"to": "alpha", "variant": "three-hand", "with": ["gamma"], "boards": 1},
                   token=beta).get_json()["challenge_id"]
    match_id = api.post(f"/challenges/{cid}/accept", token=alpha).get_json()["match_id"]
    match = api.get(f"/matches/{match_id}").get_json()
    assert [(p["name"], p["kind"]) for p in match["participants"]] == [("beta", "bot"), ("alpha", "bot"),
                                                                         ("gamma", "bot")]
    assert api.get("/bots/gamma").get_json()["recent_matches"] == [match_id]
    game_id = match["board_results"][0]["tables"][0]["game_id"]
    assert api.get(f"/games/{game_id}", token=gamma).get_json()["viewer"] == match["board_results"][0]["tables"][0][
        "seats"].index("gamma")


@pytest.mark.slow
def test_a_game_between_two_bots_is_rated_once_it_is_over(api):
    alpha, beta = register(api, "alpha"), register(api, "beta")
    cid = api.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "options": {"target_score": 1}},
                   token=beta).get_json()["challenge_id"]
    game_id = api.post(f"/challenges/{cid}/accept", token=alpha).get_json()["game_id"]
    tokens = {"alpha": alpha, "beta": beta}
    for _ in range(2000):
        views = {name: api.get(f"/games/{game_id}", token=t).get_json() for name, t in tokens.items()}
        if views["alpha"]["status"] == "over":
            break
        for name, view in views.items():
            if view["legal_moves"]:
                moves = view["legal_moves"]
                move = next((m for m in moves if m["type"] == "knock"), moves[-1] if moves[0]["type"] == "take_upcard"
                            else moves[0])
                api.post(f"/games/{game_id}/moves", json=move, token=tokens[name],
                         headers={"If-Match": f'"{view["version"]}"'})
    final = api.get(f"/games/{game_id}").get_json()
    assert final["status"] == "over"
    ratings = {r["name"]: r for r in api.get("/ratings").get_json()["ratings"]}
    assert set(ratings) == {"alpha", "beta"} and ratings["alpha"]["games"] == ratings["beta"]["games"] == 1
    # one rating period from new ratings: the winner of the game (seat 0 is beta, the challenger) rises
    points = [0, 0]
    for result in final["hand_results"]:
        if result.get("winner") is not None:
            points[result["winner"]] += result["points"]
    winner, loser = ("beta", "alpha") if points[0] > points[1] else ("alpha", "beta")
    assert ratings[winner]["rating"] > 1500 > ratings[loser]["rating"]
    assert api.get("/bots/alpha").get_json()["ratings"]["gin-rami"]["games"] == 1
