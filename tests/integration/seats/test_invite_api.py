"""Invite links for private games over HTTP: POST /games {"private": true} gives each open seat an
invite secret once; POST /games/{id}/seats/{seat} then needs it (403 invite_required otherwise)."""

from __future__ import annotations

import hashlib

import pytest
import redis

from support.gameplay import create_game


def private_gin_rami(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, None], private=True)
    seats = g.created["seats"]
    assert seats[0]["kind"] == "human" and "invite" not in seats[0]
    assert seats[1]["kind"] == "open" and isinstance(seats[1]["invite"], str) and len(seats[1]["invite"]) >= 43
    assert g.created["view"]["private_seats"] == [1]
    return g, seats[1]["invite"]


def claim(api, g, seat, body):
    return api.post(f"/games/{g.game_id}/seats/{seat}", json=body)


def test_a_private_seat_is_refused_without_its_invite_and_changes_nothing(api):
    g, _ = private_gin_rami(api)
    version = g.version()
    for body in ({"name": "eve"}, {"name": "eve", "invite": "a-guess"}):
        resp = claim(api, g, 1, body)
        assert resp.status_code == 403 and resp.get_json()["code"] == "invite_required"
    view = g.view(None)
    assert view["version"] == version and view["status"] == "waiting" and view["players"][1] is None


def test_the_invite_given_at_creation_claims_the_seat_once(api):
    g, invite = private_gin_rami(api)
    resp = claim(api, g, 1, {"name": "bob", "invite": invite})
    assert resp.status_code == 201
    body = resp.get_json()
    assert body["seat"] == 1 and body["view"]["status"] == "playing" and body["view"]["players"][1] == {"name": "bob"}
    # the invite is spent: the seat is taken
    again = claim(api, g, 1, {"name": "eve", "invite": invite})
    assert again.status_code == 409 and again.get_json()["code"] == "seat_taken"
    # bob's token plays
    bob = api.get(f"/games/{g.game_id}", token=body["token"]).get_json()
    assert bob["viewer"] == 1 and bob["hand"] is not None


def test_an_invite_opens_only_its_own_seat(api):
    g = create_game(api, "three-hand", [{"name": "ann"}, None, None], private=True)
    invites = {s["seat"]: s["invite"] for s in g.created["seats"] if s["kind"] == "open"}
    assert sorted(invites) == [1, 2] and invites[1] != invites[2]
    resp = claim(api, g, 2, {"name": "cat", "invite": invites[1]})
    assert resp.status_code == 403 and resp.get_json()["code"] == "invite_required"
    assert claim(api, g, 2, {"name": "cat", "invite": invites[2]}).status_code == 201


def test_public_games_behave_as_before(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, None])
    assert "invite" not in g.created["seats"][1] and g.created["view"]["private_seats"] == []
    # an invite sent for a public seat is ignored
    assert claim(api, g, 1, {"name": "bob", "invite": "anything"}).status_code == 201


def test_the_server_keeps_only_the_hash_of_an_invite(api, redis_url, key_prefix):
    g, invite = private_gin_rami(api)
    digest = hashlib.sha256(invite.encode()).hexdigest()
    stored = b""
    r = redis.Redis.from_url(redis_url)
    for key in r.scan_iter(match=f"{key_prefix}*"):
        kind = r.type(key)
        if kind == b"stream":
            stored += b"".join(v for _, fields in r.xrange(key) for v in fields.values())
        elif kind == b"hash":
            stored += b"".join(r.hgetall(key).values())
        elif kind == b"string":
            stored += r.get(key) or b""
    assert invite.encode() not in stored and digest.encode() in stored
    # and no reader of the running game sees the hash either
    created = g.events(None)[0]
    assert created["type"] == "game_created" and created["data"]["invites"] == {"1": None}


@pytest.mark.parametrize("body", [
    {"variant": "gin-rami", "seats": [{"name": "ann"}, None], "private": "yes"},
    {"variant": "gin-rami", "seats": [{"name": "ann"}, None], "private": 1},
])
def test_private_must_be_a_boolean(api, body):
    resp = api.post("/games", json=body)
    assert resp.status_code == 400 and resp.get_json()["code"] == "invalid_body"


def test_an_empty_invite_is_bad_input(api):
    g, _ = private_gin_rami(api)
    resp = claim(api, g, 1, {"name": "bob", "invite": ""})
    assert resp.status_code == 400 and resp.get_json()["code"] == "invalid_body"
    assert g.view(None)["status"] == "waiting"
