"""A match refuses Hollywood (RULES.md §5) and a target other than 1: its boards are one hand each,
which three games cannot be scored on. The refusal is a problem and creates no match."""

from __future__ import annotations

from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)


def test_a_match_with_hollywood_is_refused_and_creates_nothing(client):
    base = {"variant": "gin-rami", "participants": ["basic", "random"], "boards": 1}
    for body in ({**base, "rules": "hollywood"}, {**base, "options": {"hollywood": True}},
                 {**base, "variant": "three-hand", "participants": ["basic", "random", "simple"],
                  "options": {"hollywood": True}}):
        resp = client.post("/matches", json=body)
        assert (resp.status_code, resp.get_json()["code"]) == (422, "invalid_match"), body
        assert resp.headers["Content-Type"].startswith("application/problem+json")
    assert client.get("/matches").get_json()["matches"] == []
    # the preset with Hollywood turned off is the standard scoring, which a match plays
    resp = client.post("/matches", json={**base, "rules": "hollywood", "options": {"hollywood": False}})
    assert resp.status_code == 201, resp.get_data(as_text=True)


def test_a_match_with_a_target_other_than_one_hand_is_refused_and_creates_nothing(client):
    """A board's game ends with its first hand that scores: a target of 200 would be dropped unsaid."""
    base = {"variant": "gin-rami", "participants": ["basic", "random"], "boards": 1}
    for body in ({**base, "options": {"target_score": 200}},
                 {**base, "rules": "oklahoma", "options": {"target_score": 150}}):
        resp = client.post("/matches", json=body)
        assert (resp.status_code, resp.get_json()["code"]) == (422, "invalid_match"), body
        assert "target_score is 1, not" in resp.get_json()["detail"], resp.get_json()
    assert client.get("/matches").get_json()["matches"] == []
    # a target of 1 is what a board plays anyway
    resp = client.post("/matches", json={**base, "options": {"target_score": 1}})
    assert resp.status_code == 201, resp.get_data(as_text=True)
