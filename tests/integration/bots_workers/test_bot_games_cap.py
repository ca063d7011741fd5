"""Games of POST /games whose every seat is a built-in bot are capped per caller (a bot account's
token, and the client address, which counts every account's) and server-wide, as matches of POST /matches are: each costs the bot workers a job
per turn until it ends, however far its target, and the rate limit counts it as one request. One
more is 409 ``too_many_bot_games``, nothing stored; a game leaves the count when it is over (its
target reached, or abandoned by a real ``ginbox worker``), and a claim whose game was never made
(its process died in between) once it is stale. Games with a person's, an open or a bot
account's seat are not counted."""

from __future__ import annotations

import threading
import time

import pytest
import requests

from service.config import Settings, SettingError
from service.store.bot_games import CLAIM_STALE_MS, RedisBotGames
from support.arena_fixtures import app, arena_settings, base, client, worker_pool  # noqa: F401 (fixtures)
from support.arena_http import register

DEADLINE_S = 180
LONG = {"target_score": 500}  # the highest a game of bots alone may have: no worker runs, so it stays in play
BOTS = [{"bot": "basic"}, {"bot": "basic"}]


@pytest.fixture
def settings(redis_url, key_prefix):
    # one proxy in front: the client address is the one X-Forwarded-For names
    return arena_settings(redis_url, key_prefix, proxy_hops=1, bot_games_per_caller=2)


def create(client, seats=None, addr="10.0.0.1", token=None, key=None, options=None, variant="gin-rami"):  # noqa: F811
    headers = {"X-Forwarded-For": addr, **({"Idempotency-Key": key} if key else {})}
    body = {"variant": variant, "seats": BOTS if seats is None else seats, "options": LONG if options is None else options}
    return client.post("/games", json=body, token=token, headers=headers)


def problem(resp) -> tuple[int, str]:
    return resp.status_code, resp.get_json().get("code")


def listed(client) -> list[str]:  # noqa: F811
    return [g["game_id"] for g in client.get("/games", query_string={"limit": 100}).get_json()["games"]]


def counted(app, caller: str) -> list[str]:  # noqa: F811
    ext = app.extensions["ginbox"]
    return ext.games.bot_games.in_play(caller, ext.games.clock_ms())


def server_counted(app) -> list[str]:  # noqa: F811
    ext = app.extensions["ginbox"]
    return ext.games.bot_games.in_play_on_server(ext.games.clock_ms())


def wait_over(client, game_id: str) -> dict:  # noqa: F811
    end = time.monotonic() + DEADLINE_S
    while True:
        view = client.get(f"/games/{game_id}").get_json()
        if view["status"] == "over":
            return view
        assert time.monotonic() < end, f"game {game_id} still in play at version {view['version']}"
        time.sleep(0.2)


def test_the_settings_are_4_and_64_by_default_0_or_more_and_0_is_no_cap(monkeypatch, redis_url, key_prefix):
    for variable, field, default in (("GINBOX_BOT_GAMES_PER_CALLER", "bot_games_per_caller", 4),
                                     ("GINBOX_BOT_GAMES_IN_PLAY", "bot_games_in_play", 64)):
        assert getattr(Settings(), field) == default
        monkeypatch.setenv(variable, "-1")
        with pytest.raises(SettingError, match=variable):
            Settings.from_env()
        monkeypatch.setenv(variable, "0")
        assert getattr(Settings.from_env(), field) == 0
        monkeypatch.delenv(variable)
        assert getattr(Settings.from_env(), field) == default

    from service.app import create_app
    from support.apiclient import ValidatingClient

    uncapped = ValidatingClient(create_app(arena_settings(redis_url, key_prefix, bot_games_per_caller=0,
                                                          bot_games_in_play=0)))
    # no worker runs: every game stays in play, more than the default cap of 4, from one address
    assert [create(uncapped).status_code for _ in range(6)] == [201] * 6
    # the server's cap alone: from one address, as many as it allows
    server_only = ValidatingClient(create_app(arena_settings(redis_url, key_prefix + "s", bot_games_per_caller=0,
                                                             bot_games_in_play=5)))
    assert [create(server_only).status_code for _ in range(6)] == [201] * 5 + [409]


def test_games_of_bots_alone_are_capped_per_caller_and_the_one_over_stores_nothing(client, app):  # noqa: F811
    # no worker runs: the games stay in play
    first, second = create(client), create(client)
    assert (first.status_code, second.status_code) == (201, 201)
    before = listed(client)
    over = create(client)
    assert problem(over) == (409, "too_many_bot_games")
    assert over.headers["Content-Type"].startswith("application/problem+json")
    assert "client address" in over.get_json()["detail"] and "2 games" in over.get_json()["detail"]
    assert listed(client) == before  # nothing made
    assert sorted(counted(app, "addr:10.0.0.1")) == sorted(r.get_json()["game_id"] for r in (first, second))
    # three-hand too (every seat a built-in bot), and another policy
    assert problem(create(client, variant="three-hand", options={},
                          seats=[{"bot": "random"}] * 3)) == (409, "too_many_bot_games")

    # another address has a count of its own
    assert create(client, addr="10.0.0.2").status_code == 201
    # a seat that is not a built-in bot: not counted (a person's, an open one, a bot account's)
    assert create(client, seats=[{"name": "ann"}, {"bot": "basic"}]).status_code == 201
    assert create(client, seats=[None, {"bot": "basic"}]).status_code == 201
    alpha = register(client, "alpha")
    assert create(client, seats=[{"account": "alpha"}, {"bot": "basic"}], token=alpha).status_code == 201

    # a bot account's token has a count of its own, as for matches, besides its address's
    assert create(client, token=alpha, addr="10.0.0.3").status_code == 201
    assert create(client, token=alpha, addr="10.0.0.4").status_code == 201
    assert problem(create(client, token=alpha, addr="10.0.0.5")) == (409, "too_many_bot_games")
    assert "this bot" in create(client, token=alpha, addr="10.0.0.5").get_json()["detail"]
    # its address full, a fresh account from it is refused by the address's count
    fresh = register(client, "fresh")
    assert problem(create(client, token=fresh)) == (409, "too_many_bot_games")
    assert "client address" in create(client, token=fresh).get_json()["detail"]
    assert counted(app, "bot:fresh") == []  # nothing held for it
    # any other token counts as none: the address's count (never a way out of it, nor a 401)
    ann = create(client, seats=[{"name": "ann"}, {"bot": "basic"}]).get_json()["seats"][0]["token"]
    for token in (ann, "not-a-token-of-anyone"):
        assert problem(create(client, token=token)) == (409, "too_many_bot_games")
    assert len(counted(app, "addr:10.0.0.1")) == 2 and len(counted(app, "bot:alpha")) == 2


def test_a_retry_with_its_idempotency_key_gets_its_game_and_a_refused_one_is_decided_again(client, app):  # noqa: F811
    app.extensions["ginbox"].games.bot_games_per_caller = 1
    key, other = "k" * 22 + "-made", "k" * 22 + "-refused"
    made = create(client, key=key)
    assert made.status_code == 201
    game_id = made.get_json()["game_id"]
    # at the cap, the retry of the request that made a game gets that game again, counting nothing
    again = create(client, key=key)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["game_id"] == game_id
    assert counted(app, "addr:10.0.0.1") == [game_id]
    # a refused request is not recorded: each retry is decided afresh
    assert problem(create(client, key=other)) == (409, "too_many_bot_games")
    assert problem(create(client, key=other)) == (409, "too_many_bot_games")
    assert listed(client) == [game_id]


def test_a_game_leaves_the_count_when_it_is_over_by_its_target_or_abandoned(client, app, settings, tmp_path):  # noqa: F811
    # the worker ends a game of bots alone after 2 drawn hands in a row: random against random
    # with one turn a hand draws almost every hand
    pool = worker_pool(settings, tmp_path)
    pool.env["GINBOX_ABANDON_DRAWN_HANDS"] = "2"
    short = create(client, options={"target_score": 1}).get_json()["game_id"]
    redeals = create(client, seats=[{"bot": "random"}, {"bot": "random"}],
                     options={"max_turns_per_hand": 1}).get_json()["game_id"]
    refused = create(client, key="w" * 22)
    assert problem(refused) == (409, "too_many_bot_games")
    try:
        pool.start()
        assert wait_over(client, short)["end"]["reason"] == "target_score"
        assert wait_over(client, redeals)["end"]["reason"] == "abandoned"
    finally:
        pool.stop_all()
    assert counted(app, "addr:10.0.0.1") == [] and server_counted(app) == []
    # both places are free again; the refused request's key is decided afresh
    made = [create(client, key="w" * 22), create(client)]
    assert [r.status_code for r in made] == [201, 201]
    assert problem(create(client)) == (409, "too_many_bot_games")


def test_a_claim_whose_game_was_never_made_holds_its_place_only_until_it_is_stale(client, app, settings):  # noqa: F811
    games = app.extensions["ginbox"].games
    now = games.clock_ms()
    store = RedisBotGames(app.extensions["ginbox"].redis, settings.key_prefix)
    # what a process that died between counting a game and making it leaves: one a while ago,
    # one just now (a creation that may still be on its way)
    assert store.claim("addr:10.0.0.1", "AAAAAAAAAAAAAAAA", 2, now - CLAIM_STALE_MS - 1, server_cap=64) is None
    assert store.claim("addr:10.0.0.1", "BBBBBBBBBBBBBBBB", 2, now, server_cap=64) is None
    made = create(client)
    assert made.status_code == 201  # the stale one was dropped
    assert sorted(counted(app, "addr:10.0.0.1")) == sorted(["BBBBBBBBBBBBBBBB", made.get_json()["game_id"]])
    assert problem(create(client)) == (409, "too_many_bot_games")  # the recent one still counts
    assert "AAAAAAAAAAAAAAAA" not in server_counted(app) and "BBBBBBBBBBBBBBBB" in server_counted(app)
    games.clock_ms = lambda: now + CLAIM_STALE_MS
    assert create(client).status_code == 201
    assert "BBBBBBBBBBBBBBBB" not in counted(app, "addr:10.0.0.1")
    assert "BBBBBBBBBBBBBBBB" not in server_counted(app)


def test_the_server_caps_games_of_bots_alone_whoever_makes_them(client, app):  # noqa: F811
    # bot accounts register freely and each is a caller of its own: the server's cap bounds them all
    games = app.extensions["ginbox"].games
    games.bot_games_in_play = 3
    made = [create(client, addr=f"10.0.1.{i}") for i in range(3)]  # three callers, one game each
    assert [r.status_code for r in made] == [201] * 3
    before = listed(client)
    over = create(client, addr="10.0.1.9")
    assert problem(over) == (409, "too_many_bot_games")
    assert "the server has 3 games" in over.get_json()["detail"]
    assert listed(client) == before  # nothing made
    assert counted(app, "addr:10.0.1.9") == []  # nor a place of the caller's held for it
    alpha = register(client, "alpha")
    refused = create(client, token=alpha)
    assert problem(refused) == (409, "too_many_bot_games") and "the server has" in refused.get_json()["detail"]
    assert counted(app, "bot:alpha") == []
    # a game with a seat that is not a built-in bot is not counted, by the server either
    assert create(client, seats=[{"name": "ann"}, {"bot": "basic"}], addr="10.0.1.9").status_code == 201
    assert sorted(server_counted(app)) == sorted(r.get_json()["game_id"] for r in made)
    # a caller at its own cap hears of its own cap first
    games.bot_games_per_caller = 1
    assert "this client address has 1 games" in create(client, addr="10.0.1.0").get_json()["detail"]


def test_concurrent_creations_never_pass_the_cap_together(app, base):  # noqa: F811
    app.extensions["ginbox"].games.bot_games_per_caller = 3
    statuses: list[int] = []
    start = threading.Barrier(12)

    def one():
        start.wait()
        resp = requests.post(f"{base}/games", json={"variant": "gin-rami", "seats": BOTS, "options": LONG},
                             headers={"X-Forwarded-For": "10.0.0.7"}, timeout=30)
        statuses.append(resp.status_code)

    threads = [threading.Thread(target=one) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [201] * 3 + [409] * 9
    assert len(counted(app, "addr:10.0.0.7")) == 3


def test_concurrent_creations_of_many_callers_never_pass_the_server_cap_together(app, base):  # noqa: F811
    app.extensions["ginbox"].games.bot_games_in_play = 3
    statuses: list[int] = []
    start = threading.Barrier(12)

    def one(i: int):
        start.wait()
        resp = requests.post(f"{base}/games", json={"variant": "gin-rami", "seats": BOTS, "options": LONG},
                             headers={"X-Forwarded-For": f"10.0.2.{i}"}, timeout=30)
        statuses.append(resp.status_code)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [201] * 3 + [409] * 9
    assert len(server_counted(app)) == 3
    # the refused callers hold no place of their own
    assert sum(len(counted(app, f"addr:10.0.2.{i}")) for i in range(12)) == 3
