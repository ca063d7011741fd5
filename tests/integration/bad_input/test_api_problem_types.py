"""An error answer's ``type`` leads to its description: GET /problems and /problems/{code}."""

from __future__ import annotations

from urllib.parse import urljoin

from service.api.problem_types import PROBLEM_TYPES


def test_the_type_of_a_real_error_answer_describes_its_code(api):
    refused = api.get("/games/AAAAAAAAAAAAAAAA")
    assert refused.status_code == 404
    problem = refused.get_json()
    assert problem["code"] == "game_not_found" and problem["type"] == "/problems/game_not_found"
    described = api.get(urljoin("/games/AAAAAAAAAAAAAAAA", problem["type"]))  # resolved as RFC 3986 says
    assert described.status_code == 200
    entry = described.get_json()
    assert entry["code"] == "game_not_found"
    assert entry["type"] == problem["type"] and entry["title"] == problem["title"]
    assert 404 in entry["statuses"] and "no game" in entry["description"]


def test_the_list_holds_every_code_once_and_each_entry_is_served(api):
    listed = api.get("/problems")
    assert listed.status_code == 200
    entries = listed.get_json()["problem_types"]
    codes = [e["code"] for e in entries]
    assert codes == sorted(PROBLEM_TYPES) and len(set(codes)) == len(codes)
    for entry in entries:
        assert api.get(entry["type"]).get_json() == entry


def test_an_unknown_code_is_not_found(api):
    missing = api.get("/problems/no_such_code")
    assert missing.status_code == 404 and missing.get_json()["code"] == "not_found"
