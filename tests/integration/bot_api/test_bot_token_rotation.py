"""A bot account replaces its token (the old one stops working at once, at its seats too) or revokes
it (none works any more); the server keeps only the SHA-256 of the token that works."""

from __future__ import annotations

import hashlib
import uuid

from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register
from support.problems import problem


def a_game_of(client, alpha: str, beta: str) -> str:
    """alpha and beta at a game (beta's challenge, which alpha accepts); its id."""
    made = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, token=beta)
    assert made.status_code == 201, made.get_data(as_text=True)
    accepted = client.post(f"/challenges/{made.get_json()['challenge_id']}/accept", token=alpha)
    assert accepted.status_code == 200, accepted.get_data(as_text=True)
    return accepted.get_json()["game_id"]


def arena_values(app) -> list[str]:  # noqa: F811
    """Every string the arena's keys hold (their hashes' fields and values) on Redis."""
    store = app.extensions["ginbox"].arena.store
    out = []
    for key in store.redis.scan_iter(f"{store.prefix}:*"):
        if store.redis.type(key) in (b"hash", "hash"):
            for field, value in store.redis.hgetall(key).items():
                out += [field.decode(), value.decode()]
    return out


def test_a_replaced_token_stops_working_at_once_and_the_new_one_plays_its_seats(app, client):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    game_id = a_game_of(client, alpha, beta)
    seat = client.get(f"/games/{game_id}", token=alpha).get_json()["viewer"]  # the old token used at the seat

    resp = client.post("/bots/me/token", token=alpha)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    new = resp.get_json()["token"]
    assert resp.get_json()["name"] == "alpha" and new != alpha and len(new) >= 40

    problem(client.get("/bots/me", token=alpha), 401, "bot_token_required")
    problem(client.get("/bots/me/stream?once=1", token=alpha), 401, "bot_token_required")
    problem(client.post("/bots/me/token", token=alpha), 401, "bot_token_required")
    assert client.get("/bots/me", token=new).get_json()["name"] == "alpha"
    # at its seat: the old token is no seat's, the new one is the same seat's
    problem(client.get(f"/games/{game_id}", token=alpha), 401, "unauthorized")
    view = client.get(f"/games/{game_id}", token=new).get_json()
    assert view["viewer"] == seat is not None
    mover = new if view["legal_moves"] else beta
    moves = client.get(f"/games/{game_id}", token=mover).get_json()["legal_moves"]
    assert client.post(f"/games/{game_id}/moves", json=moves[0], token=mover).status_code == 200
    # new games take the new token too
    second = a_game_of(client, new, beta)
    assert client.get(f"/games/{second}", token=new).status_code == 200
    problem(client.get(f"/games/{second}", token=alpha), 401, "unauthorized")

    # the arena keeps the new token's SHA-256, never a token itself
    kept = app.extensions["ginbox"].arena.store.bot("alpha")["token_hash"]
    assert kept == hashlib.sha256(new.encode()).hexdigest()
    values = arena_values(app)
    assert kept in values and hashlib.sha256(alpha.encode()).hexdigest() not in values
    assert new not in values and alpha not in values


def test_a_replacement_sent_again_with_its_key_gets_the_same_token(client):  # noqa: F811
    alpha = register(client, "alpha")
    key = str(uuid.uuid4())
    first = client.post("/bots/me/token", token=alpha, headers={"Idempotency-Key": key})
    again = client.post("/bots/me/token", token=alpha, headers={"Idempotency-Key": key})
    assert first.status_code == again.status_code == 200
    assert again.get_json()["token"] == first.get_json()["token"] and again.headers["Idempotent-Replayed"] == "true"
    assert client.get("/bots/me", token=first.get_json()["token"]).status_code == 200
    # another key is another replacement, which the old token no longer asks
    problem(client.post("/bots/me/token", token=alpha, headers={"Idempotency-Key": str(uuid.uuid4())}),
            401, "bot_token_required")


def test_a_revoked_token_works_nowhere_and_the_account_stays_readable(client):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    game_id = a_game_of(client, alpha, beta)
    assert client.get(f"/games/{game_id}", token=alpha).status_code == 200
    resp = client.delete("/bots/me/token", token=alpha)
    assert resp.status_code == 204 and resp.get_data() == b""
    problem(client.get("/bots/me", token=alpha), 401, "bot_token_required")
    problem(client.post("/bots/me/token", token=alpha), 401, "bot_token_required")
    problem(client.delete("/bots/me/token", token=alpha), 401, "bot_token_required")
    problem(client.get(f"/games/{game_id}", token=alpha), 401, "unauthorized")
    problem(client.post("/challenges", json={"to": "beta", "variant": "gin-rami"}, token=alpha),
            401, "bot_token_required")
    assert client.get("/bots/alpha").get_json()["name"] == "alpha"
    # the name stays taken
    problem(client.post("/bots", json={"name": "Alpha"}), 409, "bot_name_taken")
    # no token at all, or a made-up one, revokes nothing
    problem(client.delete("/bots/me/token"), 401, "bot_token_required")
    problem(client.delete("/bots/me/token", token="not-a-token"), 401, "bot_token_required")
    assert client.get("/bots/me", token=beta).status_code == 200
