"""GET /bots/me/stream stays open while quiet, on a Redis client whose socket timeout is shorter
than the stream's keep-alive (as in production: GINBOX_REDIS_TIMEOUT 2 s, keep-alive 5 s); and it
takes the bot's token as ``?token=`` (for EventSource), as openapi.yaml lists."""

from __future__ import annotations

import pytest

from support.apiclient import ValidatingClient, load_openapi, make_app
from support.gameplay import parse_sse


@pytest.fixture
def short_timeout_api(redis_url, key_prefix) -> ValidatingClient:
    # socket timeout 0.3 s, keep-alive 1 s: each quiet wait outlasts the client's socket timeout
    app = make_app(redis_url, key_prefix, redis_timeout_s=0.3,
                   extra={"stream_keepalive_s": 1.0, "stream_max_s": 30.0})
    return ValidatingClient(app, load_openapi())


def register(api, name: str) -> str:
    resp = api.post("/bots", json={"name": name, "description": "plays", "owner": "ann@example.org"})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["token"]


class ChunkReader:
    """The live response's chunks, read one at a time (each is what the server's generator yielded)."""

    def __init__(self, resp):
        self.resp = resp
        self._chunks = iter(resp.response)
        self.text = ""

    def read_until(self, marker: str, most: int = 20) -> str:
        """Read chunks until ``marker`` has arrived; what was read for it."""
        got = ""
        for _ in range(most):
            chunk = next(self._chunks)
            got += chunk.decode() if isinstance(chunk, bytes) else chunk
            if marker in got:
                self.text += got
                return got
        raise AssertionError(f"{marker!r} did not arrive in {most} chunks: {got!r}")


def test_a_quiet_bot_stream_outlives_the_socket_timeout_sends_keep_alives_and_then_the_next_event(short_timeout_api):
    api = short_timeout_api
    alpha, beta = register(api, "alpha"), register(api, "beta")
    first = api.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, token=beta)
    assert first.status_code == 201, first.get_data(as_text=True)
    resp = api.get("/bots/me/stream", token=alpha, buffered=False)
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    reader = ChunkReader(resp)
    try:
        [challenge] = parse_sse(reader.read_until("event: challenge"))
        assert challenge.json()["challenge_id"] == first.get_json()["challenge_id"]
        # nothing happens: the server waits a whole keep-alive period (> the socket timeout), twice
        assert reader.read_until(": keep-alive") == ": keep-alive\n\n"
        assert reader.read_until(": keep-alive") == ": keep-alive\n\n"
        # an event appended after the quiet spell reaches the same connection
        second = api.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, token=beta)
        assert second.status_code == 201, second.get_data(as_text=True)
        [later] = parse_sse(reader.read_until("event: challenge"))
        assert later.json()["challenge_id"] == second.get_json()["challenge_id"]
        assert int(later.id.split("-")[0]) >= int(challenge.id.split("-")[0]) and later.id != challenge.id
    finally:
        resp.close()


def test_the_bot_stream_takes_the_token_in_the_query_for_event_source_and_the_header_wins(short_timeout_api):
    api = short_timeout_api
    alpha, beta = register(api, "alpha"), register(api, "beta")
    made = api.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, token=beta)
    assert made.status_code == 201
    by_query = api.get("/bots/me/stream", query_string={"once": "1", "token": alpha})
    by_header = api.get("/bots/me/stream?once=1", token=alpha)
    assert by_query.status_code == by_header.status_code == 200
    events = parse_sse(by_query.get_data(as_text=True))
    assert [e.event for e in events] == ["challenge"]
    assert events[0].json()["challenge_id"] == made.get_json()["challenge_id"]
    assert [e.data for e in parse_sse(by_header.get_data(as_text=True))] == [e.data for e in events]
    # beta's header wins over alpha's token in the query: beta's stream has no challenge to it
    both = api.get("/bots/me/stream", token=beta, query_string={"once": "1", "token": alpha})
    assert both.status_code == 200
    assert [e.event for e in parse_sse(both.get_data(as_text=True))] == []
    refused = api.get("/bots/me/stream", query_string={"once": "1", "token": "not-a-bot-token"})
    assert refused.status_code == 401
