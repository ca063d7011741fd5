"""The Idempotency-Key rule of a challenge's answers (decline, withdraw, accept) is stated for what
they are: operations whose answer holds what they decided, or made (an accept's match or game),
not only operations that create something and hand out its tokens."""

from __future__ import annotations

import pytest
from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register


@pytest.mark.parametrize("how", ["accept", "decline", "withdraw"])
def test_a_short_key_on_an_answer_is_refused_in_words_that_fit_it(client, how):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    made = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, token=beta)
    assert made.status_code == 201, made.get_data(as_text=True)
    cid = made.get_json()["challenge_id"]
    before = client.get(f"/challenges/{cid}").get_json()
    resp = client.post(f"/challenges/{cid}/{how}", token=beta if how == "withdraw" else alpha,
                       headers={"Idempotency-Key": "short"})
    assert resp.status_code == 400, resp.get_data(as_text=True)
    problem = resp.get_json()
    assert problem["code"] == "invalid_header"
    assert "made or decided" in problem["detail"] and "creates something" not in problem["detail"], problem
    assert client.get(f"/challenges/{cid}").get_json() == before
