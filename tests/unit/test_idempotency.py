"""The creations under an Idempotency-Key (service.idempotency), over the records' in-memory twin.

What a key stands for must never change between releases: a record written by one release is
looked up by the next, so the fingerprints are checked against their formulas written out here.
"""

from __future__ import annotations

import hashlib
import json

import pytest
import redis

from service.errors import IdempotencyKeyInUse, IdempotencyKeyReused
from service.idempotency import (
    CreationIdempotency,
    RecordedAnswer,
    bodiless_fingerprint,
    body_fingerprint,
    key_scope,
    request_fingerprint,
)
from service.store.creations import InMemoryCreationRecords

KEY = "k" * 22
SECRET = "s" * 32


def _service() -> CreationIdempotency:
    # over the records' in-memory twin (the same behaviour suite holds it to CreationRecords's)
    return CreationIdempotency(InMemoryCreationRecords("t", secret=SECRET))


def test_a_creations_fingerprint_is_the_sha256_of_method_path_and_canonical_body():
    body = {"b": [1, "é"], "a": None}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    expected = hashlib.sha256(f"POST /games\n{canonical}".encode()).hexdigest()
    assert body_fingerprint("post", "/games", body) == expected


def test_a_bodiless_routes_fingerprint_is_its_method_and_path_and_the_digest_of_any_bytes():
    assert bodiless_fingerprint("POST", "/challenges/c/accept", b"") == \
        hashlib.sha256(b"POST /challenges/c/accept\n").hexdigest()
    digest = hashlib.sha256(b"x").hexdigest()
    assert bodiless_fingerprint("POST", "/challenges/c/accept", b"x") == \
        hashlib.sha256(f"POST /challenges/c/accept\nsha256:{digest}".encode()).hexdigest()


def test_a_moves_fingerprint_puts_the_seat_on_a_line_before_the_body():
    # service.games.request_fingerprint: method and path, the seat, the canonical body
    expected = hashlib.sha256(b'POST /games/g/moves\n1\n{"type":"draw"}').hexdigest()
    assert request_fingerprint("post", "/games/g/moves", "1", '{"type":"draw"}') == expected


def test_a_key_is_scoped_by_route_and_the_hash_of_the_token_presented():
    assert key_scope("POST", "/games", None) == "POST /games"
    assert key_scope("POST", "/challenges", "tok") == \
        f"POST /challenges token:{hashlib.sha256(b'tok').hexdigest()}"


def test_the_first_request_claims_the_key_and_its_recorded_answer_is_given_to_the_retry():
    creations = _service()
    fingerprint = body_fingerprint("POST", "/games", {"variant": "gin-rami"})
    creation = creations.begin("POST /games", KEY, fingerprint)
    assert creation.made.fingerprint == fingerprint
    creation.record(201, {"Location": "/games/g"}, b'{"game_id":"g"}\n')
    replayed = creations.begin("POST /games", KEY, fingerprint)
    assert replayed == RecordedAnswer(fingerprint, 201, {"Location": "/games/g"}, b'{"game_id":"g"}\n')


def test_the_key_of_another_request_is_refused_as_reused():
    creations = _service()
    creations.begin("POST /games", KEY, "first").record(201, {}, b"{}")
    with pytest.raises(IdempotencyKeyReused):
        creations.begin("POST /games", KEY, "second")


def test_while_a_request_holds_the_key_another_is_told_to_retry_after_a_second():
    creations = _service()
    creations.begin("POST /games", KEY, "first")
    with pytest.raises(IdempotencyKeyInUse) as refused:
        creations.begin("POST /games", KEY, "first")
    assert refused.value.code == "idempotency_key_in_use" and refused.value.retry_after == 1


def test_a_refused_request_gives_its_key_up():
    creations = _service()
    creations.begin("POST /games", KEY, "first").release()
    # free again: another request may take it (a held or recorded key would be refused)
    with pytest.raises(ValueError), creations.begin("POST /games", KEY, "second"):
        raise ValueError("refused")
    assert creations.begin("POST /games", KEY, "third").made.fingerprint == "third"


def test_a_request_failing_on_redis_leaves_its_key_to_the_same_request_alone():
    creations = _service()
    with pytest.raises(redis.ConnectionError), creations.begin("POST /games", KEY, "first"):
        raise redis.ConnectionError("lost")
    with pytest.raises(IdempotencyKeyReused):
        creations.begin("POST /games", KEY, "another")
    retry = creations.begin("POST /games", KEY, "first")
    assert retry.made.fingerprint == "first"


def test_the_same_key_in_two_scopes_names_two_records():
    creations = _service()
    creations.begin("POST /games", KEY, "first").record(201, {}, b"{}")
    assert creations.begin("POST /bots", KEY, "other").made.fingerprint == "other"
