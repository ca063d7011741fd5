"""A match says whether it counts: ``rated`` in ``GET /matches/{id}`` (and in the answer that made
it), as asked with ``POST /matches`` (true by default), false for a challenge's match with a
person, who has no rating."""

from __future__ import annotations

import pytest
from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register


@pytest.mark.parametrize("asked, rated", [({}, True), ({"rated": True}, True), ({"rated": False}, False)])
def test_a_match_shows_whether_it_is_rated(client, asked, rated):  # noqa: F811
    made = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "random"], "boards": 1,
                                         **asked})
    assert made.status_code == 201, made.get_data(as_text=True)
    assert made.get_json()["rated"] is rated
    assert client.get(f"/matches/{made.get_json()['match_id']}").get_json()["rated"] is rated


def test_a_challenges_match_is_rated_between_bots_and_not_with_a_person(client):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    seen = {}
    for who, extra, token in (("bot", {}, beta), ("person", {"name": "ann"}, None)):
        made = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "boards": 1, **extra},
                           token=token)
        assert made.status_code == 201, made.get_data(as_text=True)
        accepted = client.post(f"/challenges/{made.get_json()['challenge_id']}/accept", token=alpha)
        assert accepted.status_code == 200, accepted.get_data(as_text=True)
        seen[who] = client.get(f"/matches/{accepted.get_json()['match_id']}").get_json()["rated"]
    assert seen == {"bot": True, "person": False}
