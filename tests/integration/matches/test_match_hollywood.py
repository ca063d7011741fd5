"""A match refuses Hollywood (RULES.md §5): its boards are one hand each, which three games cannot be
scored on. The refusal is a problem and creates no match."""

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
