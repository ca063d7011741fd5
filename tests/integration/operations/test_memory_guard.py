"""The memory guard (GINBOX_MEMORY_GUARD): once Redis's used_memory passes the share of its
maxmemory, new games, matches and challenges are refused 503 ``server_full`` and /readyz says so,
while the games under way go on. The module runs a Redis server of its own, whose maxmemory it sets."""

from __future__ import annotations

import pytest
from support.apiclient import ValidatingClient, make_app

from service.connections import redis_client
from service.redis_process import RedisServerProcess

GAME = {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory):
    proc = RedisServerProcess(tmp_path_factory.mktemp("guarded-redis")).start()
    conn = redis_client(proc.url)
    try:
        yield proc.url, conn
    finally:
        conn.close()
        proc.stop()


@pytest.fixture
def guarded(own_redis, key_prefix):
    url, conn = own_redis
    conn.config_set("maxmemory", "0")
    yield conn
    conn.config_set("maxmemory", "0")


def used_memory(conn) -> int:
    return int(conn.info("memory")["used_memory"])


def test_past_the_share_of_maxmemory_new_games_are_refused_and_games_under_way_go_on(own_redis, guarded,
                                                                                     key_prefix):
    url, conn = own_redis
    # maxmemory well above what is used (no eviction, no OOM), and a share that it already passes
    most = used_memory(conn) * 4
    api = ValidatingClient(make_app(url, key_prefix, memory_guard_share=0.01))
    made = api.post("/games", json=GAME)
    assert made.status_code == 201  # no maxmemory yet: no guard
    game_id, ann = made.get_json()["game_id"], made.get_json()["seats"][0]["token"]
    assert api.get("/readyz").get_json() == {"status": "ready", "new_games": True}

    conn.config_set("maxmemory", str(most))
    refused = api.post("/games", json=GAME)
    assert refused.status_code == 503
    assert refused.get_json()["code"] == "server_full" and refused.headers["Retry-After"] == "60"
    ready = api.get("/readyz")
    assert ready.status_code == 200
    body = ready.get_json()
    assert body["status"] == "ready" and body["new_games"] is False
    assert body["memory"]["max"] == most and 0 < body["memory"]["used"] and body["memory"]["guard_share"] == 0.01
    assert api.get("/healthz").status_code == 200
    # a bot registration is no game, and the game under way is still read and played
    assert api.post("/bots", json={"name": "alpha"}).status_code == 201
    challenge = api.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "cat"})
    assert challenge.status_code == 503 and challenge.get_json()["code"] == "server_full"
    view = api.get(f"/games/{game_id}", token=ann)
    assert view.status_code == 200 and view.get_json()["status"] == "playing"
    # the refusals made nothing: one game in the listing
    assert [g["game_id"] for g in api.get("/games").get_json()["games"]] == [game_id]


def test_under_the_share_or_with_the_guard_off_games_are_made(own_redis, guarded, key_prefix):
    url, conn = own_redis
    conn.config_set("maxmemory", str(used_memory(conn) * 4))  # about a quarter used: under 0.9
    api = ValidatingClient(make_app(url, key_prefix, memory_guard_share=0.9))
    assert api.post("/games", json=GAME).status_code == 201
    body = api.get("/readyz").get_json()
    assert body["new_games"] is True and body["memory"]["guard_share"] == 0.9
    off = ValidatingClient(make_app(url, key_prefix, memory_guard_share=0))
    assert off.post("/games", json=GAME).status_code == 201
    assert off.get("/readyz").get_json() == {"status": "ready", "new_games": True}
