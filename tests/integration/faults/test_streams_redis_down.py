"""Live streams when Redis is killed (-9) under them: each ends cleanly, with a last comment.

The API runs under a real gunicorn (one gevent process, as ``ginbox serve`` runs it) on a
redis-server the test starts. A game's stream, a bot's stream and a match's stream are open
and waiting when Redis is killed: each chunked answer then ends with its final chunk (a cut one
makes http.client raise IncompleteRead), its last message the comment saying the store is not
reachable, and the server's log holds one warning line per stream and no traceback.
"""

from __future__ import annotations

import http.client
import json
import time

import pytest
from support.servers import ApiServer, HttpClient, open_stream, read_event_ids, service_env

from service.api.sse import UNREACHABLE
from service.redis_process import RedisServerProcess


def open_get(port: int, path: str, token: str | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    conn.request("GET", path, headers={"Authorization": f"Bearer {token}"} if token else {})
    return conn.getresponse()


@pytest.mark.slow
def test_streams_open_when_redis_dies_end_with_their_last_chunk_and_a_comment_saying_so(tmp_path, key_prefix):
    # the last message: a comment line (no event a client must handle) that says what to do
    assert UNREACHABLE.startswith(": ") and UNREACHABLE.endswith("reconnect with Last-Event-ID\n\n")
    server = RedisServerProcess(tmp_path / "redis").start()
    env = service_env(server.url, key_prefix, GINBOX_REDIS_TIMEOUT=0.5, GINBOX_RATE_LIMIT=10**9)
    api = ApiServer(env, tmp_path / "gunicorn.log", workers=1).start()
    http_ = HttpClient("127.0.0.1", api.port, timeout=30)
    streams = {}
    try:
        created = http_.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
        assert created.status == 201
        game_id = created.body["game_id"]
        seen = created.body["view"]["version"]
        bot = http_.call("POST", "/bots", {"name": f"b{key_prefix[-8:]}"})
        assert bot.status == 201
        match = http_.call("POST", "/matches", {"variant": "gin-rami", "participants": ["basic", "random"],
                                                "boards": 1})
        assert match.status == 201  # no worker runs here: the match stays in play

        streams["game"] = open_stream(api.port, game_id, created.body["seats"][0]["token"], timeout=15)
        streams["bot"] = open_get(api.port, "/bots/me/stream", bot.body["token"])
        streams["match"] = open_get(api.port, f"/matches/{match.body['match_id']}/stream")
        assert {name: resp.status for name, resp in streams.items()} == {"game": 200, "bot": 200, "match": 200}
        # each has sent what there was and waits on Redis
        ids, ended = read_event_ids(streams["game"], time.monotonic() + 10, stop_at=seen)
        assert ids[-1] == seen and not ended
        assert [streams["bot"].readline() for _ in range(2)] == [b": connected\n", b"\n"]
        assert [streams["match"].readline() for _ in range(2)] == [b": connected\n", b"\n"]
        assert streams["match"].readline().startswith(b"id: ")  # the match's progress so far

        server.kill()
        for name, resp in streams.items():
            # the rest of the answer, to its final chunk (a cut chunked answer raises IncompleteRead)
            rest = resp.read().decode()
            assert rest.endswith(UNREACHABLE), (name, rest[-300:])
    finally:
        for resp in streams.values():
            resp.close()
        http_.close()
        api.stop()
        server.kill()
    log = api.log_text()
    assert "Error handling request" not in log and "Traceback" not in log, log[-3000:]
    warnings = [json.loads(line) for line in log.splitlines()
                if line.startswith("{") and '"logger":"service.api.sse"' in line]
    assert [w["level"] for w in warnings] == ["warning"] * 3
    assert sorted(w["message"].split()[1] for w in warnings) == sorted(
        [f"/games/{game_id}/stream", "/bots/me/stream", f"/matches/{match.body['match_id']}/stream"])
    assert all("redis unavailable" in w["message"] and "\n" not in w["message"] for w in warnings)
