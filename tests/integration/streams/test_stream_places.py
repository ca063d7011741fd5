"""Open live streams cannot starve the API: they wait on Redis connections of their own, and each
client has at most GINBOX_MAX_STREAMS_PER_CLIENT of them open at once.

Every waiting stream holds a Redis connection. On the requests' pool (redis-py caps it at 100)
a hundred and some streams from one address left the ordinary requests of everyone else none:
503 redis_unavailable. Here the API runs under a real gunicorn (one gevent process, as ``ginbox
serve`` runs it) on a real Redis: 120 streams from one address wait, and another client's reads
are all answered; one stream more from that address is 429 rate_limited, while a stream with a
seat token (another client) is not; the places are given back when the streams end.

The places themselves (service.store.stream_places.StreamPlaces) are checked on Redis with a clock of the
test's: the cap, Retry-After, a place given back, and the places of a process that died, which
lapse once their lease is not renewed.
"""

from __future__ import annotations

import hashlib
import http.client
import json

import pytest
from support.servers import ApiServer, HttpClient, service_env

from service.store.stream_places import PLACE_LEASE_S, StreamPlaces

#: streams held open from one address: more than the 100 connections of the requests' pool
STREAMS = 120


def open_get(port: int, path: str, token: str | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Authorization": f"Bearer {token}"} if token else {})
    return conn.getresponse()


def address_key(key_prefix: str, address: str = "127.0.0.1") -> str:
    return f"{key_prefix}:streams:addr:{hashlib.sha256(address.encode()).hexdigest()[:32]}"


@pytest.mark.slow
def test_streams_of_one_client_leave_the_others_requests_their_connections(tmp_path, key_prefix, redis_url,
                                                                           redis_conn):
    env = service_env(redis_url, key_prefix, GINBOX_RATE_LIMIT=10**9, GINBOX_MAX_STREAMS_PER_CLIENT=STREAMS)
    api = ApiServer(env, tmp_path / "gunicorn.log", workers=1).start()
    client = HttpClient("127.0.0.1", api.port, timeout=30)
    streams: list[http.client.HTTPResponse] = []
    try:
        created = client.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
        assert created.status == 201
        game_id = created.body["game_id"]
        ann, bob = (seat["token"] for seat in created.body["seats"])
        path = f"/games/{game_id}/stream"

        # one address opens STREAMS spectator streams; each has begun, and waits for the next event
        for _ in range(STREAMS):
            resp = open_get(api.port, path)
            assert resp.status == 200, (resp.status, resp.read()[:300])
            assert resp.readline() == b": connected\n"
            streams.append(resp)
        assert redis_conn.zcard(address_key(key_prefix)) == STREAMS

        # the reads of another client are answered, every one
        statuses = [client.call("GET", f"/games/{game_id}", token=bob).status for _ in range(40)]
        assert statuses == [200] * 40

        # one stream more from that address is refused before its first byte
        over = open_get(api.port, path)
        body = over.read()
        assert over.status == 429
        assert over.getheader("Content-Type") == "application/problem+json"
        problem = json.loads(body)
        assert problem["code"] == "rate_limited" and f"at most {STREAMS}" in problem["detail"]
        # the oldest stream ends at the latest 300 s after it began (and it began in this test)
        assert 1 <= int(over.getheader("Retry-After")) <= 300
        # ... but not one of a seat's token: another client
        seat = open_get(api.port, path, ann)
        assert seat.status == 200 and seat.readline() == b": connected\n"
        streams.append(seat)

        # the game ends: every stream sends its last event and ends, and gives its place back
        # before its last chunk
        assert client.call("POST", f"/games/{game_id}/moves", {"type": "resign"}, token=bob).status == 200
        for resp in streams:
            rest = resp.read()
            assert b"event: game_resigned" in rest
        assert redis_conn.zcard(address_key(key_prefix)) == 0
        again = open_get(api.port, path)
        assert again.status == 200
        assert b"event: game_resigned" in again.read()
    finally:
        for resp in streams:
            resp.close()
        client.close()
        api.stop()
    log = api.log_text()
    assert "Traceback" not in log and "redis unavailable" not in log, log[-3000:]


class Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_places_count_per_client_and_are_given_back(redis_conn, key_prefix):
    clock = Clock(1_000_000.0)
    places = StreamPlaces(redis_conn, key_prefix, cap=2, stream_max_s=300.0, clock=clock)
    first, _ = places.take([("addr", "10.0.0.1", 2)])
    clock.now += 10
    second, _ = places.take([("addr", "10.0.0.1", 2)])
    assert first is not None and second is not None
    clock.now += 20
    refused, retry_after = places.take([("addr", "10.0.0.1", 2)])
    # the oldest began 30 s ago (within its lease): it ends at the latest 300 - 30 s from now
    assert refused is None and retry_after == 270
    # another address is another client
    other, _ = places.take([("addr", "10.0.0.2", 2)])
    assert other is not None

    first.give_back()
    first.give_back()  # a second time changes nothing
    third, _ = places.take([("addr", "10.0.0.1", 2)])
    assert third is not None
    assert places.take([("addr", "10.0.0.1", 2)])[0] is None
    assert redis_conn.zcard(places.key("addr", "10.0.0.1")) == 2
    assert places.held() == 3  # second, third and the other address's


def test_a_place_refused_on_one_counter_takes_none_on_the_others(redis_conn, key_prefix):
    clock = Clock(2_000_000.0)
    places = StreamPlaces(redis_conn, key_prefix, cap=1, clock=clock)
    # the address's token-bearing streams are full (cap 1 here) ...
    held, _ = places.take([("token", "t1", 1), ("addr-tokens", "10.0.0.1", 1)])
    assert held is not None
    # ... so a stream of another token of that address is refused, and its own counter stays empty
    refused, _ = places.take([("token", "t2", 1), ("addr-tokens", "10.0.0.1", 1)])
    assert refused is None
    assert redis_conn.zcard(places.key("token", "t2")) == 0
    assert places.held() == 2


def test_the_places_of_a_process_that_died_lapse_and_a_live_ones_are_renewed(redis_conn, key_prefix):
    clock = Clock(3_000_000.0)
    dead = StreamPlaces(redis_conn, key_prefix, cap=2, clock=clock)   # a process killed with its streams
    alive = StreamPlaces(redis_conn, key_prefix, cap=2, clock=clock)  # one that goes on serving
    assert dead.take([("addr", "10.0.0.9", 2)])[0] is not None
    assert alive.take([("addr", "10.0.0.9", 2)])[0] is not None
    assert alive.take([("addr", "10.0.0.9", 2)])[0] is None

    # the live process renews its stream's lease; the dead one renews nothing
    clock.now += PLACE_LEASE_S / 2
    alive.renew()
    clock.now += PLACE_LEASE_S / 2 + 1  # the dead process's lease is over, the renewed one is not
    taken, _ = alive.take([("addr", "10.0.0.9", 2)])
    assert taken is not None
    assert alive.take([("addr", "10.0.0.9", 2)])[0] is None
    assert redis_conn.zcard(alive.key("addr", "10.0.0.9")) == 2
