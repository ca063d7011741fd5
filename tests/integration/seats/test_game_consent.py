"""A game of POST /games seats a bot account only with its consent, as a match does: the bot sends
the request itself (its token) or its profile says accepts_matches. And a match made by an accepted
challenge names that challenge in the bots' match_started, so that a restarted arena_bot leaves the
challenge alone."""

from __future__ import annotations

from support.arena_fixtures import app, base, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register, stream_events
from workers.arena_bot import ArenaBot


def game(client, seats, token=None):  # noqa: F811
    return client.post("/games", json={"variant": "gin-rami", "seats": seats}, token=token)


def problem(resp) -> tuple[int, str]:
    return resp.status_code, resp.get_json().get("code")


def test_a_game_seats_a_bot_account_only_with_its_consent(client):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    # anyone seating alpha, which neither sends it nor accepts matches: refused, nothing made or told
    assert problem(game(client, [{"account": "alpha"}, {"name": "ann"}])) == (403, "match_not_consented")
    assert problem(game(client, [{"account": "ALPHA"}, {"account": "beta"}], token=beta)) == (403, "match_not_consented")
    # a token that is no bot's is refused, not taken for no token
    assert problem(game(client, [{"account": "alpha"}, {"name": "ann"}], token="not-a-token")) \
        == (401, "bot_token_required")
    malformed = client.post("/games", json={"variant": "gin-rami", "seats": [{"account": "alpha"}, None]},
                            headers={"Authorization": f"Basic {alpha}"})
    assert problem(malformed) == (401, "bot_token_required")
    assert client.get("/games").get_json()["games"] == []
    assert stream_events(client, alpha) == [] and stream_events(client, beta) == []
    assert client.get("/bots/alpha").get_json()["games"] == 0
    # alpha sends it itself: seated, and told
    mine = game(client, [{"name": "ann"}, {"account": "alpha"}], token=alpha)
    assert mine.status_code == 201
    assert mine.get_json()["seats"][1] == {"seat": 1, "name": "alpha", "kind": "account", "account": "alpha"}
    kinds = [kind for kind, _ in stream_events(client, alpha)]
    # (and its turn, when the cut makes it the first to act)
    assert kinds in (["game_started"], ["game_started", "your_turn"]), kinds
    # but it does not consent for beta
    assert problem(game(client, [{"account": "alpha"}, {"account": "beta"}], token=alpha)) \
        == (403, "match_not_consented")
    # beta opts in (accepts_matches covers games): then alpha, or anyone, may seat it
    client.patch("/bots/me", json={"accepts_matches": True}, token=beta)
    assert game(client, [{"account": "alpha"}, {"account": "beta"}], token=alpha).status_code == 201
    assert game(client, [{"account": "beta"}, {"bot": "basic"}]).status_code == 201
    # withdrawn, it is refused again
    client.patch("/bots/me", json={"accepts_matches": False}, token=beta)
    assert problem(game(client, [{"account": "beta"}, {"bot": "basic"}])) == (403, "match_not_consented")
    assert client.get("/bots/beta").get_json()["games"] == 2
    # a game seating no bot account reads no token: it is made as before, whatever is presented
    assert game(client, [{"name": "ann"}, {"name": "bob"}], token="not-a-token").status_code == 201


def test_match_started_names_the_challenge_that_made_the_match(client):  # noqa: F811
    alpha = register(client, "alpha")
    made = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "ann", "boards": 1})
    cid = made.get_json()["challenge_id"]
    match_id = client.post(f"/challenges/{cid}/accept", token=alpha).get_json()["match_id"]
    started = [data for kind, data in stream_events(client, alpha) if kind == "match_started"]
    assert started == [{"match_id": match_id, "variant": "gin-rami", "boards": 1, "challenge_id": cid,
                       "type": "match_started"}]  # every stream message says its type in its data
    # a match of POST /matches came from no challenge
    own = client.post("/matches", json={"variant": "gin-rami", "participants": ["alpha", "basic"], "boards": 1},
                      token=alpha).get_json()["match_id"]
    started = [data for kind, data in stream_events(client, alpha) if kind == "match_started"]
    assert started[1] == {"match_id": own, "variant": "gin-rami", "boards": 1, "type": "match_started"}


def test_a_restarted_arena_bot_leaves_alone_a_challenge_whose_match_started(client, base):  # noqa: F811
    alpha = register(client, "alpha")
    challenge = {"to": "alpha", "variant": "gin-rami", "name": "ann", "boards": 1}
    accepted = client.post("/challenges", json=challenge).get_json()["challenge_id"]
    assert client.post(f"/challenges/{accepted}/accept", token=alpha).status_code == 200
    pending = client.post("/challenges", json={**challenge, "name": "bob"}).get_json()["challenge_id"]
    # a new process reads the stream's past: only the challenge still pending is left to accept
    _, challenges = ArenaBot(base, alpha, threads=1, accept_challenges=True, deadline_s=30).read_past()
    assert challenges == [pending]
