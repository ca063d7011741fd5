"""A creation's Idempotency-Key is refused with the rule that applies to creations (22 to 200
letters, digits, '-' or '_'), whatever is wrong with it: a key of 201 characters was told the
rule of a move's key (1 to 200 visible ASCII characters), which it seemed to nearly meet."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("key", ["k" * 201, "k" * 21, "k" * 30 + " x", "k" * 30 + "!", "ключ" * 8])
@pytest.mark.parametrize("path, body", [("/bots", {"name": "keyed"}),
                                        ("/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}]})])
def test_a_creation_key_that_breaks_the_rule_is_told_the_creation_rule(api, key, path, body):
    resp = api.post(path, json=body, headers={"Idempotency-Key": key.encode("utf-8").decode("latin-1")})
    assert resp.status_code == 400, resp.get_data(as_text=True)
    problem = resp.get_json()
    assert problem["code"] == "invalid_header" and "Idempotency-Key" in problem["errors"]
    assert "22 to 200 letters, digits" in problem["detail"] and "visible ASCII" not in problem["detail"], problem
    assert api.get("/bots/keyed").status_code == 404
    assert api.get("/games").get_json()["games"] == []


def test_a_creation_key_of_200_characters_is_taken(api):
    resp = api.post("/bots", json={"name": "keyed"}, headers={"Idempotency-Key": "k" * 200})
    assert resp.status_code == 201, resp.get_data(as_text=True)
