"""Creations sent with an Idempotency-Key, through the use cases on the in-memory stores: a retry
of a request whose answer was lost finds what the first one made, and answers the same.

What a key makes (``Made``) comes from the in-memory creation records, as the API takes it from
the Redis ones; a retry is a second ``Made`` of the same slot and request.
"""

from __future__ import annotations

import pytest

from service.errors import IdempotencyKeyReused
from service.store.base import canonical_json
from service.idempotency import request_fingerprint
from service.store.creations import InMemoryCreationRecords, Made

KEY = "retry-key-0123456789abcdef"


@pytest.fixture
def records(use_cases):
    return InMemoryCreationRecords(use_cases.settings.key_prefix, clock=use_cases.clock)


def made(records, scope: str, path: str, body: dict) -> Made:
    return Made(records.slot(scope, KEY), request_fingerprint("POST", path, canonical_json(body)))


def test_a_game_created_again_with_its_key_is_the_same_game_with_the_same_tokens(games, records):
    body = {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}
    first = games.create_game(body, made=made(records, "POST /games", "/games", body))
    retry = made(records, "POST /games", "/games", body)
    again = games.create_game(body, made=retry)
    assert retry.found is True
    assert again["game_id"] == first["game_id"] and again["seats"] == first["seats"]
    assert [g["game_id"] for g in games.list_games(None, None, None, 10)[0]] == [first["game_id"]]


def test_a_key_sent_again_with_another_game_is_refused(games, records):
    body = {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}
    games.create_game(body, made=made(records, "POST /games", "/games", body))
    other = {**body, "seats": [{"name": "cat"}, {"name": "dan"}]}
    with pytest.raises(IdempotencyKeyReused):
        games.create_game(other, made=made(records, "POST /games", "/games", other))


def test_a_seat_claimed_again_with_its_key_gives_the_same_token(games, records):
    game_id = games.create_game({"variant": "gin-rami", "seats": [{"name": "ann"}, None]})["game_id"]
    body = {"name": "bob"}
    path = f"/games/{game_id}/seats/1"
    token, answer = games.claim_seat(game_id, 1, lambda: body, made(records, "POST seat", path, body))
    retry = made(records, "POST seat", path, body)
    token_again, answer_again = games.claim_seat(game_id, 1, lambda: body, retry)
    assert retry.found is True and token_again == token and answer_again.version == answer.version
    assert games.seat_for(game_id, token) == 1


def test_a_bot_registered_again_with_its_key_gets_the_same_token(arena, records):
    body = {"name": "alpha"}
    first = arena.register_bot(body, made(records, "POST /bots", "/bots", body))
    retry = made(records, "POST /bots", "/bots", body)
    assert arena.register_bot(body, retry) == first and retry.found is True


def test_a_match_made_again_with_its_key_is_the_same_match(arena, records):
    body = {"variant": "gin-rami", "participants": ["basic", "random"], "boards": 1}
    first = arena.create_match(body, address="10.0.0.1", made=made(records, "POST /matches", "/matches", body))
    retry = made(records, "POST /matches", "/matches", body)
    again = arena.create_match(body, address="10.0.0.1", made=retry)
    assert retry.found is True and again["match_id"] == first["match_id"]
    assert arena.store.matches() == [first["match_id"]]
