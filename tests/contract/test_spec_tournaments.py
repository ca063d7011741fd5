"""The tournaments' routes against openapi.yaml: every answer below goes through the validating
client, the stream's messages included; the spec lists the problem codes the routes answer with."""

from __future__ import annotations

import pytest

from support.apiclient import ValidatingClient, _spec, load_openapi, make_app


@pytest.fixture
def short_streams(redis_url, key_prefix) -> ValidatingClient:
    # a stream ends after half a second: the tournament below is never played (no worker)
    return ValidatingClient(make_app(redis_url, key_prefix, extra={"stream_max_s": 0.5, "stream_keepalive_s": 0.1}),
                            load_openapi())


def test_the_tournament_routes_answer_as_the_spec_says(short_streams):
    api = short_streams
    made = api.post("/tournaments", json={"system": "swiss", "entries": ["basic", "simple", "random"], "rounds": 2,
                                          "boards": 2, "rated": False})
    assert made.status_code == 201
    view = made.get_json()
    assert view["schedule"][0]["bye"] == "random" and view["schedule"][0]["pairings"][0]["status"] == "playing"
    assert api.get(f"/tournaments/{view['tournament_id']}").status_code == 200
    assert api.get("/tournaments").get_json()["tournaments"][0]["tournament_id"] == view["tournament_id"]
    stream = api.get(f"/tournaments/{view['tournament_id']}/stream")
    body = stream.get_data(as_text=True)
    assert stream.status_code == 200 and "event: standings" in body and '"type":"standings"' in body
    assert api.get(f"/tournament/{view['tournament_id']}").mimetype == "text/html"
    for body, code in (({"system": "elimination", "entries": ["basic", "simple"], "boards": 1}, "unknown_pairing_system"),
                       ({"system": "swiss", "entries": ["basic"], "boards": 1}, "tournament_too_small")):
        assert api.post("/tournaments", json=body).get_json()["code"] == code
    assert api.get("/tournaments/AAAAAAAAAAAAAAAA").get_json()["code"] == "tournament_not_found"


def test_the_spec_names_every_code_of_the_tournament_routes():
    create = _spec()["paths"]["/tournaments"]["post"]["description"]
    for code in ("unknown_pairing_system", "tournament_too_small", "tournament_too_large", "invalid_tournament",
                 "tournament_not_consented", "too_many_tournaments", "unknown_participant", "duplicate_participant"):
        assert f"`{code}`" in create, code
    assert "`tournament_not_found`" in _spec()["paths"]["/tournaments/{tournament_id}"]["get"]["description"]
