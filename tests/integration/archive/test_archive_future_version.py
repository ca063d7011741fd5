"""A game whose archived record is of a format version this server does not know reads as an error
with a stable code, never as some other log; over HTTP, a 500 problem with that code."""

from __future__ import annotations

import pytest
from support.store_behaviour import played_game

from service.rules import archive, codec
from service.store.errors import ArchiveUnreadable
from service.store.redis_store import RedisEventStore


def test_a_record_from_a_newer_server_is_refused_clearly(redis_conn, key_prefix):
    store = RedisEventStore(redis_conn, codec=codec, prefix=key_prefix)
    version = 0
    for batch in played_game("three-hand", seed=10):  # a game that ends
        version = store.append("g1", batch, version)
    assert store.archive("g1")
    key = f"{key_prefix}:{{g1}}:archive"
    record = redis_conn.get(key)
    redis_conn.set(key, record[:3] + bytes([archive.FORMAT_VERSION + 1]) + record[4:])

    newer = RedisEventStore(redis_conn, codec=codec, prefix=key_prefix)  # nothing decoded in memory
    for read in (lambda: newer.load("g1"), lambda: newer.load("g1", after=3, upto=9), lambda: newer.tail("g1", 2)):
        with pytest.raises(ArchiveUnreadable) as refused:
            read()
        assert refused.value.code == "archive_format_unsupported" and refused.value.game_id == "g1"
    assert newer.version("g1") == version  # the game is there, at its version; only its log cannot be read


def _api(redis_url, key_prefix):
    from service.app import create_app
    from service.composition import make_bot_scheduler
    from service.config import Settings
    from support.apiclient import ValidatingClient, load_openapi

    settings = Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                        rate_limit_per_minute=1_000_000, stream_opens_per_minute=0, max_streams_per_client=0)
    app = create_app(settings, bot_scheduler=make_bot_scheduler(settings))
    return app, ValidatingClient(app, load_openapi())


@pytest.mark.parametrize("damage, code", [("newer format", "archive_format_unsupported"),
                                          ("damaged", "archive_unreadable")])
def test_the_api_answers_a_record_it_cannot_read_with_a_problem_that_says_so(damage, code, redis_conn, redis_url,
                                                                              key_prefix):
    from support.archive_reads import play_to_the_end

    app, api = _api(redis_url, key_prefix)
    game_id, tokens = play_to_the_end(api, "gin-rami", seed=3, options={"target_score": 1})
    assert app.extensions["ginbox"].store.archive(game_id)
    key = f"{key_prefix}:{{{game_id}}}:archive"
    record = redis_conn.get(key)
    if damage == "newer format":
        redis_conn.set(key, record[:3] + bytes([archive.FORMAT_VERSION + 1]) + record[4:])
    else:
        redis_conn.set(key, record[:8] + bytes(b ^ 0xFF for b in record[8:24]) + record[24:])
    damaged = redis_conn.get(key)
    _, fresh = _api(redis_url, key_prefix)  # nothing of the game decoded or cached in this process
    seat = {"Authorization": f"Bearer {tokens[0]}"}
    for path, headers in [(f"/games/{game_id}", {}), (f"/games/{game_id}", seat),
                          (f"/games/{game_id}/events", seat), (f"/games/{game_id}/export", {}),
                          (f"/games/{game_id}/audit", {})]:
        resp = fresh.get(path, headers=headers)
        assert resp.status_code == 500, (path, resp.get_data(as_text=True))
        assert resp.mimetype == "application/problem+json"
        assert resp.get_json()["code"] == code, (path, resp.get_json())
    assert redis_conn.get(key) == damaged  # nothing was changed
