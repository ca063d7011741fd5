"""The refusal of a challenge's ``with`` bot that does not accept matches tells it the one way it
can consent, ``accepts_matches`` (PATCH /bots/me): it cannot send the challenge itself, since a
challenger naming itself in ``with`` is 422 ``duplicate_participant``. A match of ``POST
/matches`` still names both ways."""

from __future__ import annotations

from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register


def test_a_with_bot_is_told_to_set_accepts_matches_and_not_to_send_the_request(client):  # noqa: F811
    register(client, "alpha")
    beta = register(client, "beta")
    register(client, "idle")
    body = {"to": "alpha", "variant": "three-hand", "with": ["idle"], "move_time_s": 5}
    made = client.post("/challenges", json=body, token=beta)
    assert made.status_code == 403, made.get_data(as_text=True)
    problem = made.get_json()
    assert problem["code"] == "match_not_consented"
    assert "accepts_matches (PATCH /bots/me)" in problem["detail"], problem
    assert "sends the request" not in problem["detail"], problem
    # naming itself is no way to consent
    itself = client.post("/challenges", json={**body, "with": ["beta"]}, token=beta)
    assert itself.status_code == 422 and itself.get_json()["code"] == "duplicate_participant", itself.get_json()
    # a match names both ways
    match = client.post("/matches", json={"variant": "gin-rami", "participants": ["idle", "basic"], "boards": 1},
                        token=beta)
    assert match.status_code == 403 and "sends the request (its token)" in match.get_json()["detail"]
