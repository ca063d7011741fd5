"""A game of POST /games seats a bot account only with its consent, as a match does: the bot sends
the request itself (its token) or its profile says accepts_matches."""

from __future__ import annotations

from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register, stream_events


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
    assert [kind for kind, _ in stream_events(client, alpha)] == ["game_started"]
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

