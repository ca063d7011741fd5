"""POST /tournaments refused with stable codes and nothing created; consent by accepts_tournaments;
the bounds of the settings; the listing, the view of an unknown tournament and the stream."""

from __future__ import annotations

import json

import pytest

from support.arena_fixtures import app, arena_settings, client  # noqa: F401 (fixtures)


@pytest.fixture
def settings(redis_url, key_prefix):
    return arena_settings(redis_url, key_prefix, tournament_entries=4, tournament_rounds=3, tournament_boards=3,
                          tournaments_in_play=1)


def nothing_made(client) -> None:
    assert client.get("/tournaments").get_json()["tournaments"] == []
    assert client.get("/matches").get_json()["matches"] == []


def test_bad_tournaments_are_refused_with_stable_codes_and_create_nothing(client):
    alpha = client.post("/bots", json={"name": "alpha", "accepts_matches": True}).get_json()["token"]
    rr = {"system": "round_robin", "boards": 1}
    cases = [
        ({**rr, "entries": ["basic", "simple", "random", "basic", "simple"]}, 422, "tournament_too_large"),
        ({**rr, "entries": ["basic"]}, 422, "tournament_too_small"),
        ({**rr, "entries": []}, 422, "tournament_too_small"),
        ({**rr, "system": "knockout", "entries": ["basic", "simple"]}, 422, "unknown_pairing_system"),
        ({**rr, "entries": ["basic", "alpha"]}, 403, "tournament_not_consented"),  # it accepts matches only
        ({**rr, "entries": ["basic", "nobody"]}, 422, "unknown_participant"),
        ({**rr, "entries": ["basic", "simple"], "boards": 4}, 422, "invalid_tournament"),
        ({**rr, "entries": ["basic", "simple"], "variant": "three-hand"}, 422, "invalid_tournament"),
        ({"system": "swiss", "entries": ["basic", "simple", "random"], "boards": 1}, 422, "invalid_tournament"),
        ({"system": "swiss", "entries": ["basic", "simple", "random"], "boards": 1, "rounds": 3}, 422,
         "invalid_tournament"),
        ({**rr, "entries": ["basic", "alpha"], "move_time_s": 4}, 422, "invalid_tournament"),
        ({**rr, "entries": ["basic", "simple"], "boards": 0}, 400, "invalid_body"),
        ({**rr, "entries": ["basic", "simple"], "colour": "red"}, 400, "invalid_body"),
    ]
    for body, status, code in cases:
        # the bot itself sends the one that is too fast for it (its token is its consent)
        resp = client.post("/tournaments", json=body, token=alpha if "move_time_s" in body else None)
        assert (resp.status_code, resp.get_json()["code"]) == (status, code), body
    nothing_made(client)
    assert client.get("/tournaments/AAAAAAAAAAAAAAAA").get_json()["code"] == "tournament_not_found"
    assert client.get("/tournaments/nope").status_code == 404
    assert client.get("/tournaments/nope/stream").status_code == 404


def test_a_bot_enters_by_its_own_token_or_by_accepting_tournaments(client):
    alpha = client.post("/bots", json={"name": "alpha"}).get_json()
    assert alpha["accepts_tournaments"] is False
    client.post("/bots", json={"name": "beta", "accepts_tournaments": True})
    assert client.get("/bots/beta").get_json()["accepts_tournaments"] is True
    body = {"system": "round_robin", "entries": ["alpha", "beta"], "boards": 1}
    assert client.post("/tournaments", json=body).get_json()["code"] == "tournament_not_consented"
    changed = client.patch("/bots/me", json={"accepts_tournaments": True}, token=alpha["token"])
    assert changed.status_code == 200 and changed.get_json()["accepts_tournaments"] is True
    assert changed.get_json()["accepts_matches"] is False  # the other setting stays
    assert client.patch("/bots/me", json={}, token=alpha["token"]).get_json()["code"] == "invalid_body"
    client.patch("/bots/me", json={"accepts_tournaments": False}, token=alpha["token"])
    # alpha sends it itself: its token is its consent; beta accepts tournaments
    made = client.post("/tournaments", json=body, token=alpha["token"])
    assert made.status_code == 201, made.get_data(as_text=True)
    view = made.get_json()
    assert made.headers["Location"] == f"/tournaments/{view['tournament_id']}"
    assert [e["kind"] for e in view["entries"]] == ["bot", "bot"]
    assert view["schedule"][0]["pairings"][0]["entries"] == ["alpha", "beta"]
    match = client.get(view["schedule"][0]["pairings"][0]["match_url"]).get_json()
    assert match["status"] == "running" and match["rated"] is False  # the tournament rates its rounds
    listed = client.get("/tournaments").get_json()["tournaments"]
    assert [t["tournament_id"] for t in listed] == [view["tournament_id"]]
    # the server takes one tournament in play (GINBOX_TOURNAMENTS_IN_PLAY=1 here)
    again = client.post("/tournaments", json={"system": "round_robin", "entries": ["basic", "simple"], "boards": 1})
    assert (again.status_code, again.get_json()["code"]) == (409, "too_many_tournaments")
    assert len(client.get("/tournaments").get_json()["tournaments"]) == 1


def test_the_stream_sends_typed_standings(client, app):
    made = client.post("/tournaments", json={"system": "round_robin", "entries": ["basic", "simple"], "boards": 1})
    tournament_id = made.get_json()["tournament_id"]
    # no worker plays here: the stream's first message is the standings as they stand; read it alone
    stream = app.extensions["ginbox"].arena.tournament_stream(tournament_id)
    assert next(stream) == ": connected\n\n"
    first = next(stream)
    lines = dict(line.split(": ", 1) for line in first.strip().split("\n"))
    assert lines["event"] == "standings"
    data = json.loads(lines["data"])
    assert data["type"] == "standings" and data["status"] == "running"
    assert [row["points"] for row in data["standings"]] == [0, 0]
