"""A challenge's accept and withdrawal take no body, and refuse one; a decline takes one, optional.

An accept's or withdrawal's request says everything in its path and token; a body sent with one
says something the server would ignore (``{bad json``, ``{"boards": 2}``), so it is bad input like
any other: 400 ``invalid_body`` (application/problem+json), nothing answered and nothing recorded
under an Idempotency-Key. No body, or an empty one (``Content-Length: 0``), is what they take.
A decline's body gives its reason (test_decline_reasons.py): a body that is not one is refused alike.
"""

from __future__ import annotations

import uuid

import pytest
from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register, stream_events

BODIES = [
    (b"{bad json", "application/json"),
    (b'{"boards": 2}', "application/json"),
    (b"{}", "application/json"),
    (b"yes", "text/plain"),
]


def _challenge(client, beta: str) -> str:  # noqa: F811
    made = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, token=beta)
    assert made.status_code == 201, made.get_data(as_text=True)
    return made.get_json()["challenge_id"]


@pytest.mark.parametrize("how", ["accept", "withdraw"])
@pytest.mark.parametrize(("data", "content_type"), BODIES)
def test_an_answer_with_a_body_is_400_invalid_body_and_changes_nothing(client, how, data, content_type):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    cid = _challenge(client, beta)
    token = beta if how == "withdraw" else alpha
    before = client.get(f"/challenges/{cid}").get_json()
    key = str(uuid.uuid4())
    resp = client.post(f"/challenges/{cid}/{how}", data=data, content_type=content_type, token=token,
                       headers={"Idempotency-Key": key})
    assert resp.status_code == 400, resp.get_data(as_text=True)
    assert resp.headers["Content-Type"].startswith("application/problem+json")
    assert resp.get_json()["code"] == "invalid_body" and "no body" in resp.get_json()["detail"]
    # nothing changed, nobody told
    assert client.get(f"/challenges/{cid}").get_json() == before
    assert [kind for kind, _ in stream_events(client, beta)] == []
    assert [kind for kind, _ in stream_events(client, alpha)] == ["challenge"]
    # the refusal recorded nothing: the same key, without the body, is answered afresh
    again = client.post(f"/challenges/{cid}/{how}", token=token, headers={"Idempotency-Key": key})
    assert again.status_code == 200 and "Idempotent-Replayed" not in again.headers, again.get_data(as_text=True)


#: a decline's body: what each is answered (``{}`` gives no reason: declined, generic)
DECLINE_BODIES = [(b"{bad json", "application/json", 400, "invalid_json"),
                  (b'{"boards": 2}', "application/json", 400, "invalid_body"),
                  (b"yes", "text/plain", 415, "unsupported_media_type")]


@pytest.mark.parametrize(("data", "content_type", "status", "code"), DECLINE_BODIES)
def test_a_decline_with_a_body_that_is_no_reason_is_refused_and_changes_nothing(client, data, content_type,  # noqa: F811
                                                                                status, code):
    alpha, beta = register(client, "alpha"), register(client, "beta")
    cid = _challenge(client, beta)
    before = client.get(f"/challenges/{cid}").get_json()
    key = str(uuid.uuid4())
    resp = client.post(f"/challenges/{cid}/decline", data=data, content_type=content_type, token=alpha,
                       headers={"Idempotency-Key": key})
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.headers["Content-Type"].startswith("application/problem+json") and resp.get_json()["code"] == code
    assert client.get(f"/challenges/{cid}").get_json() == before
    assert [kind for kind, _ in stream_events(client, beta)] == []
    again = client.post(f"/challenges/{cid}/decline", data=b"{}", content_type="application/json", token=alpha,
                        headers={"Idempotency-Key": key})
    assert again.status_code == 200 and "Idempotent-Replayed" not in again.headers, again.get_data(as_text=True)
    assert again.get_json()["decline_reason"] == "generic"


@pytest.mark.parametrize("how", ["accept", "decline", "withdraw"])
def test_an_answer_with_an_empty_body_is_answered(client, how):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    cid = _challenge(client, beta)
    resp = client.post(f"/challenges/{cid}/{how}", data=b"", content_type="application/json",
                       token=beta if how == "withdraw" else alpha)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json()["status"] == {"accept": "accepted", "decline": "declined", "withdraw": "withdrawn"}[how]
