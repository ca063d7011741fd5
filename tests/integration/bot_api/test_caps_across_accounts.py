"""The caps on games of built-in bots alone and on matches in play count a client address across
all the bot accounts that send from it: twenty free accounts from one address hold no more than
one account does. And a game of built-in bots alone, which no seat's token can resign, has a
bounded target."""

from __future__ import annotations

import pytest

from support.arena_fixtures import app, arena_settings, client  # noqa: F401 (fixtures)
from support.arena_http import register
from support.problems import problem

CAP = 2


@pytest.fixture
def settings(redis_url, key_prefix):
    # one proxy in front: the client address is the one X-Forwarded-For names
    return arena_settings(redis_url, key_prefix, proxy_hops=1, bot_games_per_caller=CAP, matches_per_caller=CAP)


def from_addr(addr: str) -> dict:
    return {"X-Forwarded-For": addr}


def bots_alone(client, token: str | None, addr: str, target: int = 500):  # noqa: F811
    # no worker runs: a game made stays in play
    return client.post("/games", json={"variant": "gin-rami", "options": {"target_score": target},
                                       "seats": [{"bot": "basic"}, {"bot": "random"}]},
                       token=token, headers=from_addr(addr))


def a_match(client, name: str, token: str, addr: str):  # noqa: F811
    return client.post("/matches", json={"variant": "gin-rami", "participants": [name, "basic"], "boards": 1},
                       token=token, headers=from_addr(addr))


def registered(client, names: list[str], addr: str) -> dict[str, str]:  # noqa: F811
    out = {}
    for name in names:
        resp = client.post("/bots", json={"name": name}, headers=from_addr(addr))
        assert resp.status_code == 201, resp.get_data(as_text=True)
        out[name] = resp.get_json()["token"]
    return out


def test_twenty_accounts_of_one_address_hold_what_one_account_holds(client):  # noqa: F811
    # one account, from an address of its own: CAP games of bots alone and CAP matches
    lone = registered(client, ["lone"], "10.8.0.1")["lone"]
    lone_games = [bots_alone(client, lone, "10.8.0.1").status_code for _ in range(CAP + 1)]
    lone_matches = [a_match(client, "lone", lone, "10.8.0.1").status_code for _ in range(CAP + 1)]
    assert lone_games == lone_matches == [201] * CAP + [409]

    # twenty accounts registered from one address, each asking for as many as one account holds
    swarm = registered(client, [f"swarm{i}" for i in range(20)], "10.9.0.1")
    games = [bots_alone(client, token, "10.9.0.1") for token in swarm.values() for _ in range(CAP)]
    matches = [a_match(client, name, token, "10.9.0.1") for name, token in swarm.items() for _ in range(CAP)]
    assert sum(r.status_code == 201 for r in games) == CAP
    assert sum(r.status_code == 201 for r in matches) == CAP
    refused_game, refused_match = games[-1], matches[-1]
    assert "client address" in problem(refused_game, 409, "too_many_bot_games")["detail"]
    assert "client address" in problem(refused_match, 409, "too_many_matches")["detail"]
    # without a token, the address is full as well; another address is not
    problem(bots_alone(client, None, "10.9.0.1"), 409, "too_many_bot_games")
    assert bots_alone(client, None, "10.9.0.2").status_code == 201
    # a swarm account at another address still has its own count: the first made its CAP already
    first = next(iter(swarm))
    problem(bots_alone(client, swarm[first], "10.9.0.3"), 409, "too_many_bot_games")
    assert bots_alone(client, swarm["swarm19"], "10.9.0.3").status_code == 201


def test_a_game_of_bots_alone_plays_to_500_points_at_most(client):  # noqa: F811
    before = client.get("/games").get_json()["games"]
    body = problem(bots_alone(client, None, "10.7.0.1", target=501), 422, "invalid_option")
    assert "500" in body["detail"]
    assert client.get("/games").get_json()["games"] == before  # nothing made
    made = bots_alone(client, None, "10.7.0.1", target=500)
    assert made.status_code == 201 and made.get_json()["view"]["options"]["target_score"] == 500
    # a game with a seat that can resign is not bounded so
    person = client.post("/games", json={"variant": "gin-rami", "options": {"target_score": 100000},
                                         "seats": [{"name": "ann"}, {"bot": "basic"}]}, headers=from_addr("10.7.0.1"))
    assert person.status_code == 201
    alpha = register(client, "alpha")
    account = client.post("/games", json={"variant": "gin-rami", "options": {"target_score": 100000},
                                          "seats": [{"account": "alpha"}, {"bot": "basic"}]}, token=alpha)
    assert account.status_code == 201
