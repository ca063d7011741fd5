"""A JSON number too long to read (an integer of more digits than Python converts,
sys.get_int_max_str_digits) is refused as 400 invalid_json saying so, not as a body that is not JSON."""

from __future__ import annotations

import sys

import yaml
from support.apiclient import SPEC_PATH
from support.problems import problem

LIMIT = sys.get_int_max_str_digits()


def _post_game(api, number: str):
    raw = '{"variant": "gin-rami", "seats": [{"name": "ann"}, null], "first_dealer": ' + number + "}"
    return api.post("/games", data=raw.encode(), content_type="application/json")


def test_an_integer_of_too_many_digits_is_refused_as_a_number_too_long(api):
    for number in ("1" * 5000, "-" + "9" * (LIMIT + 1)):
        detail = problem(_post_game(api, number), 400, "invalid_json")["detail"]
        assert "number in the body is too long" in detail and str(LIMIT) in detail
    # one digit fewer is read: a number out of the field's range
    errors = problem(_post_game(api, "1" * LIMIT), 400, "invalid_body")["errors"]
    assert "first_dealer" in errors
    # a body that is not JSON is still said to be so
    detail = problem(_post_game(api, "1" * 10 + "x"), 400, "invalid_json")["detail"]
    assert detail == "the body is not valid UTF-8 JSON"


def test_the_spec_states_the_limit():
    spec = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    assert f"more than {LIMIT} digits" in " ".join(spec["components"]["responses"]["BadRequest"]["description"].split())
