"""A creation answered 503 (Redis did not answer in time) is made once, and found by its retry.

When the API gives up waiting for Redis, a write it has sent may still land: the answer is 503
``redis_unavailable``, and the game (or the seat's claim) exists. The fault is injected here
without pausing Redis: the app's append script runs on the real server, and its reply is then
lost (the app sees the ``TimeoutError`` a slow reply gives). A retry with the same
Idempotency-Key must then answer as the first request would have (the same game, the same
tokens, marked replayed), never make a second game, never be refused 409 ``seat_taken``.
"""

from __future__ import annotations

import uuid

import pytest
import redis

from service.api.problem_types import PROBLEM_TYPES

OPEN_GAME = {"variant": "gin-rami", "seats": [{"name": "ann"}, None]}
PRIVATE_GAME = {"variant": "gin-rami", "seats": [{"name": "ann"}, None], "private": True}


def fresh_key() -> str:
    return str(uuid.uuid4())


class Appends:
    """The app's append script on the real Redis, whose next ``lose`` replies are lost: the script
    runs (``landed``) or not (``land=False``: the connection failed before it was sent), and the
    app sees a timeout either way."""

    def __init__(self, api_app):
        self.store = api_app.extensions["ginbox"].store
        self.real = self.store._append_script
        self.lose = 0
        self.land = True
        self.lost: list[str] = []
        self.store._append_script = self

    def __call__(self, keys, args, client=None):
        if self.lose <= 0:
            return self.real(keys=keys, args=args)
        self.lose -= 1
        if self.land:
            self.real(keys=keys, args=args)
        self.lost.append(keys[0])
        raise redis.TimeoutError("Timeout reading from socket")


@pytest.fixture
def appends(api_app):
    return Appends(api_app)


def game_ids(api) -> set[str]:
    return {g["game_id"] for g in api.get("/games", query_string={"limit": 100}).get_json()["games"]}


def is_503(resp) -> None:
    assert resp.status_code == 503, resp.get_data(as_text=True)
    assert resp.get_json()["code"] == "redis_unavailable"


def test_a_creation_whose_answer_was_lost_is_found_by_its_retry_not_made_twice(api, appends):
    key = fresh_key()
    appends.lose = 1
    is_503(api.post("/games", json=OPEN_GAME, headers={"Idempotency-Key": key}))
    made = game_ids(api)
    assert len(made) == 1  # the write landed, though its answer was 503

    again = api.post("/games", json=OPEN_GAME, headers={"Idempotency-Key": key})
    assert again.status_code == 201, again.get_data(as_text=True)
    assert game_ids(api) == made  # no second game
    assert again.headers.get("Idempotent-Replayed") == "true"
    created = again.get_json()
    assert {created["game_id"]} == made
    assert created["view"]["version"] == 1 and again.headers["Location"] == f"/games/{created['game_id']}"
    # the token in the answer is the seat's: the game knows it
    token = created["seats"][0]["token"]
    mine = api.get(f"/games/{created['game_id']}", headers={"Authorization": f"Bearer {token}"})
    assert mine.status_code == 200 and mine.get_json()["viewer"] == 0

    # the answer is now recorded: a third sending gets it again, byte for byte
    third = api.post("/games", json=OPEN_GAME, headers={"Idempotency-Key": key})
    assert third.status_code == 201 and third.headers["Idempotent-Replayed"] == "true"
    assert third.get_data() == again.get_data()
    assert game_ids(api) == made


def test_a_private_games_invite_secret_survives_a_lost_answer(api, appends):
    key = fresh_key()
    appends.lose = 1
    is_503(api.post("/games", json=PRIVATE_GAME, headers={"Idempotency-Key": key}))
    created = api.post("/games", json=PRIVATE_GAME, headers={"Idempotency-Key": key}).get_json()
    invite = created["seats"][1]["invite"]
    claim = api.post(f"/games/{created['game_id']}/seats/1", json={"name": "bob", "invite": invite})
    assert claim.status_code == 201, claim.get_data(as_text=True)


def test_a_creation_that_never_landed_is_made_by_its_retry(api, appends):
    key = fresh_key()
    appends.lose, appends.land = 1, False
    is_503(api.post("/games", json=OPEN_GAME, headers={"Idempotency-Key": key}))
    assert game_ids(api) == set()
    again = api.post("/games", json=OPEN_GAME, headers={"Idempotency-Key": key})
    assert again.status_code == 201, again.get_data(as_text=True)
    assert "Idempotent-Replayed" not in again.headers
    assert game_ids(api) == {again.get_json()["game_id"]}


def test_after_a_503_the_key_stands_for_that_request_alone(api, appends):
    key = fresh_key()
    appends.lose = 1
    is_503(api.post("/games", json=OPEN_GAME, headers={"Idempotency-Key": key}))
    other = {"variant": "gin-rami", "seats": [{"name": "cy"}, None]}
    refused = api.post("/games", json=other, headers={"Idempotency-Key": key})
    assert refused.status_code == 422 and refused.get_json()["code"] == "idempotency_key_reused"
    assert len(game_ids(api)) == 1


def test_a_key_whose_mark_ran_out_still_finds_its_game(api, appends, redis_conn, key_prefix):
    """The key's mark in the records may be gone (its claim could not be replaced while Redis was
    away, and ran out): the game's own log still knows the key, and a retry with another body is
    refused, the same body answered."""
    key = fresh_key()
    appends.lose = 1
    is_503(api.post("/games", json=OPEN_GAME, headers={"Idempotency-Key": key}))
    for name in redis_conn.scan_iter(match=f"{key_prefix}:idem:*"):
        redis_conn.delete(name)
    other = {"variant": "gin-rami", "seats": [{"name": "cy"}, None]}
    refused = api.post("/games", json=other, headers={"Idempotency-Key": key})
    assert refused.status_code == 422 and refused.get_json()["code"] == "idempotency_key_reused"
    again = api.post("/games", json=OPEN_GAME, headers={"Idempotency-Key": key})
    assert again.status_code == 201 and again.headers.get("Idempotent-Replayed") == "true"
    assert game_ids(api) == {again.get_json()["game_id"]}


def test_a_seat_claim_whose_answer_was_lost_gets_its_token_on_retry(api, appends):
    game_id = api.post("/games", json=OPEN_GAME).get_json()["game_id"]
    key = fresh_key()
    appends.lose = 1
    is_503(api.post(f"/games/{game_id}/seats/1", json={"name": "bob"}, headers={"Idempotency-Key": key}))
    view = api.get(f"/games/{game_id}").get_json()
    assert view["players"][1]["name"] == "bob"  # the claim landed, though its answer was 503

    again = api.post(f"/games/{game_id}/seats/1", json={"name": "bob"}, headers={"Idempotency-Key": key})
    assert again.status_code == 201, again.get_data(as_text=True)
    assert again.headers.get("Idempotent-Replayed") == "true"
    claimed = again.get_json()
    assert claimed["seat"] == 1 and claimed["view"]["version"] == view["version"]
    mine = api.get(f"/games/{game_id}", headers={"Authorization": f"Bearer {claimed['token']}"})
    assert mine.status_code == 200 and mine.get_json()["viewer"] == 1

    third = api.post(f"/games/{game_id}/seats/1", json={"name": "bob"}, headers={"Idempotency-Key": key})
    assert third.status_code == 201 and third.get_data() == again.get_data()
    # someone else's claim of the seat is still refused
    taken = api.post(f"/games/{game_id}/seats/1", json={"name": "cy"}, headers={"Idempotency-Key": fresh_key()})
    assert taken.status_code == 409 and taken.get_json()["code"] == "seat_taken"


def test_the_unavailable_problem_does_not_say_nothing_was_recorded(api):
    text = PROBLEM_TYPES["redis_unavailable"].description
    assert "Nothing was recorded" not in text
    assert "may or may not" in text
    assert api.get("/problems/redis_unavailable").get_json()["description"] == text
