"""GET /games/{id}/stream: server-sent events, resumable with Last-Event-ID; ids are versions."""

from __future__ import annotations

import random
import threading
import time

import pytest

from support.apiclient import ValidatingClient, load_openapi, make_app
from support.decks import build_deck
from support.gameplay import SseReader, create_game, parse_sse
from support.randomplay import choose_move


@pytest.fixture
def sse_api(redis_url, key_prefix) -> ValidatingClient:
    """The app with a short keep-alive so that idle streams answer quickly."""
    app = make_app(redis_url, key_prefix, extra={"stream_keepalive_s": 0.2, "stream_max_s": 20.0})
    return ValidatingClient(app, load_openapi())


def _play(g, moves: int, rng: random.Random) -> None:
    for _ in range(moves):
        view = g.view(None)
        if view["status"] == "over":
            return
        seat = view["to_act"][0]
        g.move(seat, choose_move(g.view(seat), rng))


def _open_stream(api, g, seat, headers=None, query=None):
    resp = api.get(f"/games/{g.game_id}/stream", token=g.tokens[seat], headers=headers or {},
                   query_string=query or {}, buffered=False)
    assert resp.status_code == 200
    assert resp.mimetype == "text/event-stream"
    return SseReader(resp)


def test_a_stream_resumed_with_last_event_id_delivers_every_event_once_in_order(sse_api):
    g = create_game(sse_api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    _play(g, 12, random.Random(1))
    current = g.version()
    assert current > 8

    reader = _open_stream(sse_api, g, 0)
    first = [reader.next_event() for _ in range(5)]
    reader.close()  # the client goes away part-way
    resumed = g.stream_once(0, last_event_id=int(first[-1].id))

    received = first + resumed
    assert [int(e.id) for e in received] == list(range(1, current + 1))
    # each SSE event is the /events entry for the same caller; the event name is its type
    expected = g.events(0)
    assert [e.json() for e in received] == expected
    assert all(e.event == e.json()["type"] for e in received)


def test_after_query_parameter_resumes_like_last_event_id(sse_api):
    g = create_game(sse_api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    _play(g, 6, random.Random(2))
    by_header = g.stream_once(1, last_event_id=3)
    by_query = g.stream_once(1, after=3)
    assert [e.id for e in by_header] == [e.id for e in by_query] == [str(v) for v in range(4, g.version() + 1)]
    assert [e.data for e in by_header] == [e.data for e in by_query]


def test_the_token_may_come_as_a_query_parameter_for_event_source(sse_api):
    g = create_game(sse_api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    by_query = g.stream_once(1, use_query_token=True)
    by_header = g.stream_once(1)
    assert [e.data for e in by_query] == [e.data for e in by_header]
    dealt = [e.json() for e in by_query if e.event == "hand_dealt"]
    assert dealt and dealt[0]["data"]["hand"], "seat 1 sees its own hand in the deal"
    spectator = [e.json() for e in g.stream_once(None) if e.event == "hand_dealt"]
    assert spectator[0]["data"]["hand"] is None


def test_a_live_stream_delivers_moves_made_while_it_is_open(sse_api):
    g = create_game(sse_api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    start = g.version()
    reader = _open_stream(sse_api, g, 0, headers={"Last-Event-ID": str(start)})
    got: list = []
    failure: list = []

    def read():
        try:
            while len(got) < 6:
                got.append(reader.next_event())
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            failure.append(exc)

    t = threading.Thread(target=read)
    t.start()
    time.sleep(0.3)  # let the reader block in the server's wait for new events
    _play(g, 6, random.Random(3))
    t.join(timeout=20)
    reader.close()
    assert not t.is_alive() and not failure, failure
    assert [int(e.id) for e in got] == list(range(start + 1, start + 7))
    assert [e.json() for e in got] == g.events(0, after=start)[:6]


def test_an_idle_stream_sends_keep_alive_comments(sse_api):
    g = create_game(sse_api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    resp = sse_api.get(f"/games/{g.game_id}/stream", token=g.tokens[0],
                       headers={"Last-Event-ID": str(g.version())}, buffered=False)
    chunks = iter(resp.response)
    seen = ""
    deadline = time.monotonic() + 10
    while ": keep-alive" not in seen and time.monotonic() < deadline:
        chunk = next(chunks)
        seen += chunk.decode() if isinstance(chunk, bytes) else chunk
    resp.close()
    assert ": keep-alive" in seen
    assert "data:" not in seen, "no event happened, so none may be sent"


def test_the_stream_of_a_finished_game_ends_after_the_last_event_and_shows_everything(sse_api):
    # seat 1 (non-dealer) takes the upcard TH and goes gin discarding KS: 20 points >= target 1
    deck = build_deck("AC 2C 3C 4D 4H 4S 7H 8H 9H KS".split(), "5C 6D 8S JD QC KD 2H 3S 9D TC".split(), "TH")
    g = create_game(sse_api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0,
                    options={"target_score": 1}, decks=[deck])
    g.move(1, {"type": "take_upcard"})
    g.move(1, {"type": "knock", "discard": "KS", "melds": None})
    assert g.view(None)["status"] == "over"
    # no once=1: the stream still ends, because nothing can follow the end of the game
    resp = sse_api.get(f"/games/{g.game_id}/stream", buffered=True)
    events = parse_sse(resp.get_data(as_text=True))
    assert [int(e.id) for e in events] == list(range(1, g.version() + 1))
    dealt = [e.json() for e in events if e.event == "hand_dealt"]
    assert all(len(d["data"]["deck"]) == 52 for d in dealt), "once over, a spectator sees the decks"
