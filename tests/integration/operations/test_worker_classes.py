"""The API under each gunicorn worker class ``ginbox serve`` offers: live streams and moves side by side.

gevent (the default) serves a stream with a greenlet: many more streams than a gthread process
has threads stay open while the same process still answers moves. gthread serves one request
per thread; it is checked with fewer streams than threads.
"""

from __future__ import annotations

import time

import pytest
from support.servers import ApiServer, HttpClient, open_stream, read_event_ids, service_env

NEW_GAME = {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}



def _open(port: int, game_id: str, token: str):
    resp = open_stream(port, game_id, token, timeout=20)
    assert resp.status == 200
    assert resp.readline() == b": connected\n"
    return resp


def _read_until_id(resp, version: int) -> None:
    """Read the stream until the event of ``version`` (a read timeout fails the test)."""
    ids, ended = read_event_ids(resp, time.monotonic() + 20, stop_at=version)
    assert ids and ids[-1] == version and not ended, (ids, ended)

@pytest.mark.parametrize("worker_class, streams", [("gevent", 24), ("gthread", 2)])
@pytest.mark.slow
def test_open_streams_receive_a_move_answered_by_the_same_process(tmp_path, redis_url, key_prefix, worker_class,
                                                                  streams):
    env = service_env(redis_url, key_prefix, GINBOX_RATE_LIMIT=10**9)
    with ApiServer(env, tmp_path / "gunicorn.log", workers=1, threads=4, connections=100,
                   worker_class=worker_class) as api:
        http_ = HttpClient("127.0.0.1", api.port, timeout=20)
        created = http_.call("POST", "/games", NEW_GAME)
        assert created.status == 201
        game_id = created.body["game_id"]
        tokens = {s["seat"]: s["token"] for s in created.body["seats"]}
        version = created.body["view"]["version"]
        seat = created.body["view"]["to_act"][0]
        opened = [_open(api.port, game_id, tokens[i % 2]) for i in range(streams)]
        try:
            for resp in opened:  # each has sent what the log held when it was opened
                _read_until_id(resp, version)
            moved = http_.call("POST", f"/games/{game_id}/moves", {"type": "pass_upcard"}, token=tokens[seat])
            assert moved.status == 200, moved.raw
            assert moved.body["version"] == version + 1
            for resp in opened:
                _read_until_id(resp, version + 1)
        finally:
            for resp in opened:
                resp.close()
            http_.close()
