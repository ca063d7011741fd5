"""A bot account's turn clock runs out: the server plays for its seat, and the bot's stream says so
(``clock_moved``), with the moves the game's log shows for that seat.

alpha (a bot account) sits at a game with a one-second turn clock against the built-in basic bot,
which a real ``ginbox worker`` plays; the same worker runs the clock. alpha never moves.
"""

from __future__ import annotations

import time

import pytest

from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)
from support.arena_http import register
from support.gameplay import parse_sse

pytestmark = pytest.mark.timeout(120)


def bot_messages(client, token: str) -> list:
    """Every message of the bot's stream so far (once=1; the validating client checks each against the spec)."""
    resp = client.get("/bots/me/stream?once=1", token=token)
    assert resp.status_code == 200
    return parse_sse(resp.get_data(as_text=True))


def test_a_bot_whose_clock_ran_out_is_told_what_was_played_for_it(client, workers):  # noqa: F811
    alpha = register(client, "alpha")
    # seat 0 is the non-dealer: the upcard is offered to alpha first; one second to answer
    made = client.post("/games", json={"variant": "gin-rami", "first_dealer": 1, "options": {"turn_timeout_s": 1},
                                       "seats": [{"account": "alpha"}, {"bot": "basic"}]}, token=alpha)
    assert made.status_code == 201, made.get_data(as_text=True)
    game_id, start = made.get_json()["game_id"], made.get_json()["view"]["version"]
    assert made.get_json()["view"]["to_act"] == [0]
    before = bot_messages(client, alpha)
    assert [m.event for m in before] == ["game_started", "your_turn"]  # nothing of a clock yet

    workers.start()
    deadline = time.monotonic() + 60
    while True:
        messages = bot_messages(client, alpha)
        if any(m.event == "clock_moved" for m in messages):
            break
        assert time.monotonic() < deadline, "alpha's clock never played"
        time.sleep(0.2)
    notice = next(m for m in messages if m.event == "clock_moved")
    data = notice.json()
    assert notice.id is not None and data["type"] == "clock_moved"
    assert data["game_id"] == game_id and data["seat"] == 0

    # what the log shows alpha: the clock's marker at the version after the start, then alpha's move
    events = client.get(f"/games/{game_id}/events?limit=1000", token=alpha).get_json()["events"]
    marker = events[start]
    assert marker["type"] == "turn_timed_out" and marker["version"] == start + 1 and marker["data"]["seat"] == 0
    move = events[start + 1]
    assert move["type"] in ("upcard_taken", "upcard_passed") and move["data"]["seat"] == 0
    # an upcard's answer is one event: the clock's append ends with it
    assert data["version"] == start + 2
    assert data["moves"] == [{"type": move["type"], "data": move["data"]}]
    # told before the turns that follow it, and after the turn it ended
    kinds = [m.event for m in messages]
    assert kinds[:3] == ["game_started", "your_turn", "clock_moved"]
    # every clock_moved names a turn_timed_out of the log, one each, in order
    timed_out = [e["version"] for e in events if e["type"] == "turn_timed_out"]
    told = [m.json() for m in bot_messages(client, alpha) if m.event == "clock_moved"]
    assert len(told) <= len(timed_out) + 1  # a clock may have played once more since the events were read
    assert all(t["seat"] == 0 and t["game_id"] == game_id for t in told)
