"""A three-hand challenge seats its third participant (``with``) only with that bot's consent.

Only the challenged bot answers a challenge, so a bot account named in ``with`` is seated, made
to play and rated on the terms of a match (service/docs/BOTS.md, "Consent and bounds"): it sends the challenge
itself (impossible: the challenger is another place), or its profile says ``accepts_matches``.
Anything else is 403 ``match_not_consented`` when the challenge is made, nothing stored, and the
bot told nothing. Consent withdrawn after the challenge was made is asked again when it is
accepted: the accept is refused with the same code, nothing is made, and the challenge stays
pending (to be accepted once the bot consents again, withdrawn, or left to expire).
"""

from __future__ import annotations

import pytest
from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register, stream_events


def _refused(resp, status: int, code: str) -> dict:
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.headers["Content-Type"].startswith("application/problem+json")
    body = resp.get_json()
    assert body["code"] == code, body
    return body


@pytest.mark.parametrize("by", ["bot", "person"])
@pytest.mark.parametrize("boards", [None, 1])
def test_a_challenge_naming_a_bot_that_does_not_accept_matches_is_refused_and_stores_nothing(client, by, boards):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    idle = register(client, "idle")
    assert client.get("/bots/idle").get_json()["accepts_matches"] is False
    body = {"to": "alpha", "variant": "three-hand", "with": ["idle"], "move_time_s": 5,
            **({"boards": boards} if boards else {}), **({"name": "ann"} if by == "person" else {})}
    problem = _refused(client.post("/challenges", json=body, token=beta if by == "bot" else None),
                       403, "match_not_consented")
    assert "idle" in problem["detail"]
    # nothing stored: the challenged bot was told of no challenge, the third one of nothing
    assert [kind for kind, _ in stream_events(client, alpha)] == []
    assert stream_events(client, idle) == []
    profile = client.get("/bots/idle").get_json()
    assert (profile["games"], profile["matches"], profile["ratings"]) == (0, 0, {})
    # a challenge that needs no one's consent but the challenged bot's is made as before
    fine = client.post("/challenges", json={**body, "with": ["basic"]}, token=beta if by == "bot" else None)
    assert fine.status_code == 201, fine.get_data(as_text=True)


def test_a_bot_that_accepts_matches_may_be_named_in_with(client):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    gamma = register(client, "gamma")
    assert client.patch("/bots/me", json={"accepts_matches": True}, token=gamma).status_code == 200
    made = client.post("/challenges", json={"to": "alpha", "variant": "three-hand", "with": ["gamma"],
                                            "boards": 1, "move_time_s": 5}, token=beta)
    assert made.status_code == 201, made.get_data(as_text=True)
    accepted = client.post(f"/challenges/{made.get_json()['challenge_id']}/accept", token=alpha)
    assert accepted.status_code == 200, accepted.get_data(as_text=True)
    match = client.get(f"/matches/{accepted.get_json()['match_id']}").get_json()
    assert [p["name"] for p in match["participants"]] == ["beta", "alpha", "gamma"]


@pytest.mark.parametrize("boards", [None, 1])
def test_consent_withdrawn_before_the_accept_refuses_it_and_the_challenge_stays_pending(client, boards):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    gamma = register(client, "gamma")
    client.patch("/bots/me", json={"accepts_matches": True}, token=gamma)
    made = client.post("/challenges", json={"to": "alpha", "variant": "three-hand", "with": ["gamma"],
                                            "move_time_s": 5, **({"boards": boards} if boards else {})},
                       token=beta)
    assert made.status_code == 201, made.get_data(as_text=True)
    cid = made.get_json()["challenge_id"]
    # gamma changes its mind while the challenge waits
    client.patch("/bots/me", json={"accepts_matches": False}, token=gamma)
    before = client.get(f"/challenges/{cid}").get_json()
    problem = _refused(client.post(f"/challenges/{cid}/accept", token=alpha,
                                   headers={"Idempotency-Key": "k" * 22}), 403, "match_not_consented")
    assert "gamma" in problem["detail"]
    # nothing made, nobody told: the challenge is as it was, gamma seated nowhere
    assert client.get(f"/challenges/{cid}").get_json() == before
    assert before["status"] == "pending" and before["game_id"] is None and before["match_id"] is None
    assert client.get("/matches").get_json()["matches"] == []
    assert stream_events(client, gamma) == []
    assert [kind for kind, _ in stream_events(client, beta)] == []
    profile = client.get("/bots/gamma").get_json()
    assert (profile["games"], profile["matches"]) == (0, 0)
    # gamma consents again: the same challenge is accepted (a refused accept recorded nothing
    # under its key, so the same key is decided afresh)
    client.patch("/bots/me", json={"accepts_matches": True}, token=gamma)
    accepted = client.post(f"/challenges/{cid}/accept", token=alpha, headers={"Idempotency-Key": "k" * 22})
    assert accepted.status_code == 200, accepted.get_data(as_text=True)
    assert "Idempotent-Replayed" not in accepted.headers
    assert accepted.get_json()["status"] == "accepted"
    kinds = [kind for kind, _ in stream_events(client, gamma)]
    assert ("match_started" if boards else "game_started") in kinds
