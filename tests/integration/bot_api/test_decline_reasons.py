"""A challenge declined with a reason (and words) the challenger reads; a reason not of the list
changes nothing. And the order a challenger hears its accepted challenge in: the acceptance first."""

from __future__ import annotations

import pytest

from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register, stream_events
from support.problems import problem


def challenge(client, to: str, token: str, **more) -> str:
    resp = client.post("/challenges", json={"to": to, "variant": "gin-rami", **more}, token=token)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["challenge_id"]


def test_a_decline_gives_its_reason_and_words_to_the_challenger(client):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    cid = challenge(client, "alpha", beta, move_time_s=5)
    resp = client.post(f"/challenges/{cid}/decline", token=alpha,
                       json={"reason": "too_fast", "text": "30 s a move, please"})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    answer = resp.get_json()
    assert answer["status"] == "declined"
    assert (answer["decline_reason"], answer["decline_text"]) == ("too_fast", "30 s a move, please")
    seen = client.get(f"/challenges/{cid}").get_json()
    assert (seen["decline_reason"], seen["decline_text"]) == ("too_fast", "30 s a move, please")
    told = [data for kind, data in stream_events(client, beta) if kind == "challenge_declined"]
    assert len(told) == 1 and told[0]["challenge_id"] == cid
    assert (told[0]["decline_reason"], told[0]["decline_text"]) == ("too_fast", "30 s a move, please")


def test_a_decline_without_a_body_reads_generic_and_has_no_text(client):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    cid = challenge(client, "alpha", beta)
    resp = client.post(f"/challenges/{cid}/decline", token=alpha)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json()["decline_reason"] == "generic" and "decline_text" not in resp.get_json()
    # a reason alone
    other = challenge(client, "alpha", beta)
    resp = client.post(f"/challenges/{other}/decline", token=alpha, json={"reason": "later"})
    assert resp.get_json()["decline_reason"] == "later" and "decline_text" not in resp.get_json()


@pytest.mark.parametrize("body, status, code", [
    ({"reason": "rude"}, 422, "invalid_decline_reason"),
    ({"reason": "Later"}, 422, "invalid_decline_reason"),
    ({"reason": ""}, 400, "invalid_body"),
    ({"text": "x" * 201}, 400, "invalid_body"),
    ({"text": "bad\u0007bell"}, 400, "invalid_body"),
    ({"reason": "later", "why": "no"}, 400, "invalid_body"),
    ({"reason": 3}, 400, "invalid_body"),
])
def test_a_bad_decline_changes_nothing(client, body, status, code):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    cid = challenge(client, "alpha", beta)
    problem(client.post(f"/challenges/{cid}/decline", token=alpha, json=body), status, code)
    assert client.get(f"/challenges/{cid}").get_json()["status"] == "pending"
    assert not any(kind == "challenge_declined" for kind, _ in stream_events(client, beta))
    # still answerable: the longest text passes
    resp = client.post(f"/challenges/{cid}/decline", token=alpha, json={"reason": "variant", "text": "y" * 200})
    assert resp.status_code == 200 and resp.get_json()["decline_text"] == "y" * 200


@pytest.mark.parametrize("kind", ["match", "game"])
def test_a_challenger_hears_its_challenge_accepted_before_what_it_started(client, kind):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    cid = challenge(client, "alpha", beta, **({"boards": 1} if kind == "match" else {}))
    accepted = client.post(f"/challenges/{cid}/accept", token=alpha)
    assert accepted.status_code == 200, accepted.get_data(as_text=True)
    made = accepted.get_json()[f"{kind}_id"]
    kinds = [k for k, _ in stream_events(client, beta)]
    started = f"{kind}_started"
    assert "challenge_accepted" in kinds and started in kinds
    assert kinds.index("challenge_accepted") < kinds.index(started)
    assert kinds.count("challenge_accepted") == 1
    news = next(data for k, data in stream_events(client, beta) if k == "challenge_accepted")
    assert news["status"] == "accepted" and news[f"{kind}_id"] == made
    assert news == {**client.get(f"/challenges/{cid}").get_json(), "type": "challenge_accepted"}
