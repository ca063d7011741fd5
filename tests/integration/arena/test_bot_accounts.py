"""Bot accounts on a real Redis: registration, the profile, one token for every seat, the bot's stream."""

from __future__ import annotations

from service.store.tokens import hash_token


def register(api, name: str) -> str:
    resp = api.post("/bots", json={"name": name, "description": "plays", "owner": "ann@example.org"})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    body = resp.get_json()
    assert resp.headers["Location"] == f"/bots/{name}"
    return body["token"]


def stream_events(api, token: str, last_id: str | None = None) -> list[tuple[str, str, str]]:
    """(id, event, data) of the bot's stream so far (once=1: it ends after catching up)."""
    headers = {"Last-Event-ID": last_id} if last_id else {}
    resp = api.get("/bots/me/stream?once=1", token=token, headers=headers)
    assert resp.status_code == 200
    out = []
    for block in resp.get_data(as_text=True).split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
        if "event" in fields:
            out.append((fields["id"], fields["event"], fields["data"]))
    return out


def test_a_registered_bot_has_a_public_profile_and_its_token_is_kept_only_as_a_hash(api, api_app):
    token = register(api, "alpha")
    profile = api.get("/bots/alpha").get_json()
    assert profile["name"] == "alpha" and profile["owner"] == "ann@example.org"
    assert profile["games"] == 0 and profile["matches"] == 0 and profile["ratings"] == {}
    assert "token" not in profile
    arena = api_app.extensions["ginbox"].arena
    stored = arena.store.bot("alpha")
    assert stored["token_hash"] == hash_token(token) and token not in str(stored)


def test_names_are_checked_taken_names_refused_and_nothing_is_created_by_a_refusal(api):
    register(api, "alpha")
    again = api.post("/bots", json={"name": "alpha"})
    assert again.status_code == 409 and again.get_json()["code"] == "bot_name_taken"
    for name in ("basic", "me"):
        resp = api.post("/bots", json={"name": name})
        assert resp.status_code == 422 and resp.get_json()["code"] == "invalid_bot_name"
    # nothing was made: no bot "basic", and /bots/me is the route of a bot's own profile (its token)
    assert api.get("/bots/basic").get_json()["code"] == "bot_not_found"
    assert api.get("/bots/me").get_json()["code"] == "bot_token_required"
    bad = api.post("/bots", json={"name": "a b"})
    assert bad.status_code == 400 and bad.get_json()["code"] == "invalid_body"
    assert api.get("/bots/nobody").status_code == 404


def test_the_stream_needs_a_bot_token(api):
    assert api.get("/bots/me/stream?once=1").get_json()["code"] == "bot_token_required"
    assert api.get("/bots/me/stream?once=1", token="not-a-bot").status_code == 401


def test_one_bot_token_plays_the_bots_seat_and_another_bots_token_plays_nothing(api):
    alpha, beta = register(api, "alpha"), register(api, "beta")
    # beta challenges alpha to a game; alpha accepts: alpha sits at seat 1 with its own token
    made = api.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, token=beta)
    assert made.status_code == 201, made.get_data(as_text=True)
    challenge_id = made.get_json()["challenge_id"]
    accepted = api.post(f"/challenges/{challenge_id}/accept", token=alpha).get_json()
    game_id = accepted["game_id"]
    assert accepted["status"] == "accepted"
    view_alpha = api.get(f"/games/{game_id}", token=alpha).get_json()
    view_beta = api.get(f"/games/{game_id}", token=beta).get_json()
    assert view_alpha["viewer"] == 1 and view_beta["viewer"] == 0
    assert view_alpha["hand"] != view_beta["hand"]
    # the non-dealer moves first; whoever it is, it plays with its bot token
    mover, other = (alpha, beta) if 1 in view_alpha["to_act"] else (beta, alpha)
    version = view_alpha["version"]
    moved = api.post(f"/games/{game_id}/moves", json={"type": "pass_upcard"}, token=mover,
                     headers={"If-Match": f'"{version}"'})
    assert moved.status_code == 200
    # a third bot's token is no seat of this game
    gamma = register(api, "gamma")
    refused = api.post(f"/games/{game_id}/moves", json={"type": "pass_upcard"}, token=gamma)
    assert refused.status_code == 401 and refused.get_json()["code"] == "unauthorized"
    assert api.get(f"/games/{game_id}").get_json()["version"] == version + 1
    assert api.get("/bots/alpha").get_json()["recent_games"] == [game_id]


def test_the_stream_tells_each_game_each_turn_and_resumes_after_last_event_id(api):
    alpha, beta = register(api, "alpha"), register(api, "beta")
    made = api.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, token=beta).get_json()
    events = stream_events(api, alpha)
    assert [e[1] for e in events] == ["challenge"]
    game_id = api.post(f"/challenges/{made['challenge_id']}/accept", token=alpha).get_json()["game_id"]
    after_accept = stream_events(api, alpha, last_id=events[-1][0])
    kinds = [e[1] for e in after_accept]
    assert kinds[0] == "game_started" and game_id in after_accept[0][2]
    view = api.get(f"/games/{game_id}", token=alpha).get_json()
    # alpha is told of its turn exactly when it is to act
    assert ("your_turn" in kinds) == (1 in view["to_act"])
    beta_events = [e[1] for e in stream_events(api, beta)]
    # the challenger hears its challenge accepted first, then of the game it started
    assert beta_events == ["challenge_accepted", "game_started"] + (["your_turn"] if 0 in view["to_act"] else [])
    # resuming from the last id sends nothing again
    assert stream_events(api, alpha, last_id=after_accept[-1][0]) == []
    # a Last-Event-ID that is no id of the stream is ignored (from the start), as on a game's stream
    assert stream_events(api, alpha, last_id="yesterday") == stream_events(api, alpha) == events + after_accept


def test_a_game_seats_a_bot_account_by_name_and_its_token_plays_there(api):
    alpha = register(api, "alpha")
    # alpha sends it (its token): a game seats a bot account only with its consent
    created = api.post("/games", json={"variant": "gin-rami", "first_dealer": 1,
                                       "seats": [{"account": "alpha"}, {"name": "ann"}]}, token=alpha)
    assert created.status_code == 201, created.get_data(as_text=True)
    body = created.get_json()
    assert body["seats"][0] == {"seat": 0, "name": "alpha", "kind": "account", "account": "alpha"}
    game_id = body["game_id"]
    kinds = [e[1] for e in stream_events(api, alpha)]
    assert kinds[0] == "game_started"
    view = api.get(f"/games/{game_id}", token=alpha).get_json()
    assert view["viewer"] == 0 and view["players"][0] == {"name": "alpha", "account": "alpha"}
    # seat 0 is the non-dealer: alpha is to act, was told so, and plays with its token
    assert view["to_act"] == [0] and "your_turn" in kinds
    moved = api.post(f"/games/{game_id}/moves", json={"type": "pass_upcard"}, token=alpha,
                     headers={"If-Match": f'"{view["version"]}"'})
    assert moved.status_code == 200


def test_unknown_or_doubled_accounts_are_refused_and_no_game_is_made(api):
    register(api, "alpha")
    unknown = api.post("/games", json={"variant": "gin-rami", "seats": [{"account": "nobody"}, {"name": "ann"}]})
    assert unknown.status_code == 422 and unknown.get_json()["code"] == "unknown_participant"
    twice = api.post("/games", json={"variant": "gin-rami", "seats": [{"account": "alpha"}, {"account": "alpha"}]})
    assert twice.status_code == 422 and twice.get_json()["code"] == "duplicate_participant"
    assert api.get("/games").get_json()["games"] == []
    assert api.get("/bots/alpha").get_json()["games"] == 0
