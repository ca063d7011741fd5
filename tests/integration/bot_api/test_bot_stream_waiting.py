"""A bot's live stream begins with the games that wait on it: a bot that connects again after its
opponent moved needs no replay of its past to find its turn.

alpha (a bot account) plays the built-in basic bot, which a real ``ginbox worker`` plays.
"""

from __future__ import annotations

import time

import pytest

from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)
from support.arena_http import register
from support.gameplay import SseReader, parse_sse

pytestmark = pytest.mark.timeout(120)


def first_messages(client, token: str, last_id: str | None = None, count: int = 1) -> list:
    """The first ``count`` messages of a live stream (not once=1), checked against the spec; then it is closed."""
    headers = {"Last-Event-ID": last_id} if last_id else {}
    resp = client.get("/bots/me/stream", token=token, headers=headers, buffered=False)
    assert resp.status_code == 200
    reader = SseReader(resp)
    try:
        got = [reader.next_event() for _ in range(count)]
    finally:
        resp.close()
    assert client.check_stream_messages("/bots/me/stream", got, token=token, resp=resp) == count
    return got


def alpha_view(client, game_id: str, token: str) -> dict:
    resp = client.get(f"/games/{game_id}", token=token)
    assert resp.status_code == 200
    return resp.get_json()


def test_a_bot_connecting_again_is_first_told_of_the_game_that_waits_on_it(client, workers):  # noqa: F811
    alpha = register(client, "alpha")
    # seat 0 is the non-dealer: the upcard is offered to alpha first
    made = client.post("/games", json={"variant": "gin-rami", "first_dealer": 1,
                                       "seats": [{"account": "alpha"}, {"bot": "basic"}]}, token=alpha)
    assert made.status_code == 201, made.get_data(as_text=True)
    game_id = made.get_json()["game_id"]
    workers.start()
    view = alpha_view(client, game_id, alpha)
    assert view["to_act"] == [0]

    # connecting: the first message names the game that waits, at its version, before the past
    [first] = first_messages(client, alpha)
    assert first.id is None and first.event == "your_turn"
    assert first.json() == {"type": "your_turn", "game_id": game_id, "seat": 0, "version": view["version"],
                            "pending": True}
    past = parse_sse(client.get("/bots/me/stream?once=1", token=alpha).get_data(as_text=True))
    assert [m.event for m in past] == ["game_started", "your_turn"] and past[-1].json()["pending"] is False
    last_id = past[-1].id

    # alpha disconnected; it passes the upcard (from its view alone), and basic, on the worker, moves
    moved = client.post(f"/games/{game_id}/moves", json={"type": "pass_upcard"}, token=alpha,
                        headers={"If-Match": f'"{view["version"]}"'})
    assert moved.status_code == 200 and moved.get_json()["to_act"] == [1]
    deadline = time.monotonic() + 60
    while 0 not in (view := alpha_view(client, game_id, alpha))["to_act"]:
        assert time.monotonic() < deadline, "basic never moved"
        time.sleep(0.1)

    # connecting again without once=1, from its last id: the waiting game comes first, then what it missed
    waiting, *missed = first_messages(client, alpha, last_id=last_id, count=2)
    assert waiting.id is None and waiting.json() == {"type": "your_turn", "game_id": game_id, "seat": 0,
                                                     "version": view["version"], "pending": True}
    assert missed[0].event == "your_turn" and missed[0].id is not None
    assert tuple(map(int, missed[0].id.split("-"))) > tuple(map(int, last_id.split("-")))
    assert missed[0].json()["game_id"] == game_id and missed[0].json()["pending"] is False

    # with once=1 the stream sends only its past, as before: nothing pending, every message an entry
    again = parse_sse(client.get("/bots/me/stream?once=1", token=alpha,
                                 headers={"Last-Event-ID": last_id}).get_data(as_text=True))
    assert again and all(m.id is not None and not m.json().get("pending") for m in again)


def test_a_bot_that_nothing_waits_on_is_told_nothing_first(client):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    made = client.post("/games", json={"variant": "gin-rami", "first_dealer": 1,
                                       "seats": [{"name": "ann"}, {"account": "alpha"}]}, token=alpha)
    assert made.status_code == 201, made.get_data(as_text=True)
    assert alpha_view(client, made.get_json()["game_id"], alpha)["to_act"] == [0]  # ann's turn
    challenge = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, token=beta)
    assert challenge.status_code == 201
    # the first messages are the stream's own entries, from its start: nothing was pending
    first, second = first_messages(client, alpha, count=2)
    assert [first.event, second.event] == ["game_started", "challenge"]
    assert first.id is not None and second.id is not None
