"""Whom the rate limit counts a request against, on the real app, limiter and Redis.

A request presenting a token the server issued (a bot account's, a seat's) is counted against
that token, so bots and people on one machine (one address) each have their own budget; a
request without one is counted against its address. The limiter's clock is held inside one
window, so the counts below never straddle two.
"""

from __future__ import annotations

import secrets

import pytest
from support.apiclient import make_app

from service.ratelimit import ADDRESS_TOKENS_FACTOR, WINDOW_S

LIMIT = 10
HERE = "127.0.0.1"


@pytest.fixture
def client(redis_url, key_prefix):
    app = make_app(redis_url, key_prefix, rate_limit_per_minute=LIMIT)
    limiter = app.extensions["ginbox"].limiter
    start = 30_000 * WINDOW_S + 1.0
    limiter.clock = lambda: start  # one window for the whole test
    return app.test_client()


def get(client, path: str, token: str | None = None, addr: str = HERE) -> int:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.get(path, headers=headers, environ_base={"REMOTE_ADDR": addr}).status_code


def register(client, name: str, addr: str = HERE) -> str:
    resp = client.post("/bots", json={"name": name}, environ_base={"REMOTE_ADDR": addr})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["token"]


def new_game(client, addr: str = HERE) -> tuple[str, dict[int, str]]:
    body = {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}
    resp = client.post("/games", json=body, environ_base={"REMOTE_ADDR": addr})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    doc = resp.get_json()
    return doc["game_id"], {s["seat"]: s["token"] for s in doc["seats"]}


def until_refused(client, path: str, token: str | None = None, addr: str = HERE, most: int = 1000) -> int:
    """How many requests pass before the first 429 (which is asserted)."""
    for passed in range(most):
        status = get(client, path, token, addr)
        if status == 429:
            return passed
        assert status == 200
    raise AssertionError(f"no 429 in {most} requests")


def test_two_bots_on_one_address_each_have_their_own_budget_and_the_address_keeps_its_own(client):
    alpha, beta = register(client, "alpha"), register(client, "beta")  # 2 of the address's 10
    assert until_refused(client, "/bots/alpha", alpha) == LIMIT
    assert until_refused(client, "/bots/beta", beta) == LIMIT
    # the lobby, the curl of the person at the same machine: the address's budget is untouched
    assert until_refused(client, "/games") == LIMIT - 2
    # and a bot over its own limit stays refused: it did not borrow from the address
    assert get(client, "/bots/alpha", alpha) == 429


def test_the_seat_tokens_of_one_game_are_counted_each_on_its_own(client):
    game_id, tokens = new_game(client)  # 1 of the address's 10
    assert until_refused(client, f"/games/{game_id}", tokens[0]) == LIMIT
    assert until_refused(client, f"/games/{game_id}", tokens[1]) == LIMIT
    assert until_refused(client, f"/games/{game_id}") == LIMIT - 1


def test_an_anonymous_flood_is_limited_and_made_up_tokens_do_not_dodge_it(client):
    fresh = [secrets.token_urlsafe(32) for _ in range(LIMIT)]
    assert [get(client, "/games", token) for token in fresh] == [200] * LIMIT
    assert get(client, "/games") == 429
    assert get(client, "/games", secrets.token_urlsafe(32)) == 429
    # a seat token is issued for its own game only: on another game's routes it is made up
    game_id, tokens = new_game(client, addr="10.9.0.1")
    other, _ = new_game(client, addr="10.9.0.2")
    assert get(client, f"/games/{other}", tokens[0]) == 429
    assert get(client, f"/games/{game_id}", tokens[0]) == 200
    # another address is another client
    assert get(client, "/games", addr="10.9.0.3") == 200


def test_routes_that_make_tokens_count_against_the_address_whatever_token_they_present(client):
    alpha = register(client, "alpha", addr="10.9.1.1")
    assert until_refused(client, "/games") == LIMIT
    body = {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}
    made = client.post("/games", json=body, headers={"Authorization": f"Bearer {alpha}"},
                       environ_base={"REMOTE_ADDR": HERE})
    assert made.status_code == 429 and made.get_json()["code"] == "rate_limited"
    assert client.post("/bots", json={"name": "gamma"}, environ_base={"REMOTE_ADDR": HERE}).status_code == 429
    # what the bot's token reads is its own budget
    assert get(client, "/bots/alpha", alpha) == 200


def test_all_token_bearing_requests_of_one_address_have_a_cap_of_their_own(client):
    cap = ADDRESS_TOKENS_FACTOR * LIMIT
    bots = {f"bot-{i}": register(client, f"bot-{i}", addr=f"10.9.2.{i}") for i in range(ADDRESS_TOKENS_FACTOR + 1)}
    statuses = [get(client, f"/bots/{name}", token) for name, token in bots.items() for _ in range(LIMIT)]
    assert statuses.count(200) == cap and set(statuses) == {200, 429}
    # the same bots elsewhere, and the address without tokens, are still let through
    assert get(client, "/bots/bot-0", bots["bot-10"], addr="10.9.3.1") == 200
    assert get(client, "/games") == 200


def test_a_persons_token_of_a_challenge_is_counted_on_its_own_on_that_challenges_routes(client):
    register(client, "alpha", addr="10.9.4.1")
    body = {"to": "alpha", "variant": "gin-rami", "name": "ann"}
    resp = client.post("/challenges", json=body, environ_base={"REMOTE_ADDR": HERE})  # 1 of the address's
    assert resp.status_code == 201, resp.get_data(as_text=True)
    challenge_id, token = resp.get_json()["challenge_id"], resp.get_json()["token"]
    assert until_refused(client, f"/challenges/{challenge_id}", token) == LIMIT
    assert until_refused(client, "/games") == LIMIT - 1
