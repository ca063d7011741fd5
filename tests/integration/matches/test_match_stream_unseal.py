"""A seat's stream of a board game whose match is in play ends with a ``sealed`` message, and one
that sends the game's end after the match is over sends it in full, on a real Redis.

The seal holds a finished board's secrets back from its own seats while the match runs (its
other tables play the same deal): the event that ends the game carries no seed. A game's stream
ends with its game, and the match ends only after its last game: so the stream of a board has
sent its end sealed, and says so last (``event: sealed``, no ``id:``), telling its client to read
the game again once the match is over. A stream that sends the end once the match is over sends
what a fresh request would: everything, and no ``sealed`` message.

No worker runs: the built-in bot never moves, and the bot account alpha, which sits at both
tables (seat 0 of table 0, seat 1 of table 1), moves only when the test moves for it.
"""

from __future__ import annotations

import json

import pytest
from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register

from service.rules import duplicate as D


def resign(client, game_id: str, token: str) -> dict:
    resp = client.post(f"/games/{game_id}/moves", json={"type": "resign"}, token=token)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def messages(text: str) -> list[dict]:
    """Each message of a stream's text: its id (None without one), event name and parsed data."""
    out = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if "data" in fields:
            out.append({"id": fields.get("id"), "event": fields.get("event"), "data": json.loads(fields["data"])})
    return out


def start_match(client, alpha: str) -> tuple[str, str, str]:
    made = client.post("/matches", json={"variant": "gin-rami", "participants": ["alpha", "basic"], "boards": 1,
                                         "rated": False}, token=alpha)
    assert made.status_code == 201, made.get_data(as_text=True)
    match_id = made.get_json()["match_id"]
    return (match_id, *(D.game_id_for(match_id, 0, table) for table in range(2)))


@pytest.mark.timeout(300)
def test_a_board_streamed_while_its_match_runs_ends_with_a_sealed_message(app, client):
    alpha = register(client, "alpha")
    match_id, table0, table1 = start_match(client, alpha)
    assert resign(client, table0, alpha)["status"] == "over"
    assert client.get(f"/matches/{match_id}").get_json()["status"] == "running"  # table 1 plays on

    # the seat's stream sends the game's end without its seed, then says why, last and without an id
    got = client.get(f"/games/{table0}/stream?once=1", token=alpha)
    assert got.status_code == 200
    sent = messages(got.get_data(as_text=True))
    end, last = sent[-2], sent[-1]
    assert end["event"] == "game_resigned" and end["data"]["data"]["seed"] is None
    version = int(end["id"])
    assert last == {"id": None, "event": "sealed",
                    "data": {"type": "sealed", "at_version": version, "data": {"game_id": table0, "match_id": match_id}}}
    # a client resuming at the end is told the same: the game is over, its secrets still held back
    resumed = client.get(f"/games/{table0}/stream", token=alpha, headers={"Last-Event-ID": str(version)})
    assert messages(resumed.get_data(as_text=True)) == [last]

    # once the match is over, the stream read again shows the end with its seed, and no seal
    resign(client, table1, alpha)
    assert client.get(f"/matches/{match_id}").get_json()["status"] == "over"
    seed = client.get(f"/games/{table0}", token=alpha).get_json()["seed"]
    assert seed
    again = messages(client.get(f"/games/{table0}/stream?once=1", token=alpha).get_data(as_text=True))
    assert again[-1]["event"] == "game_resigned" and again[-1]["data"]["data"]["seed"] == seed
    assert "sealed" not in [m["event"] for m in again]


@pytest.mark.timeout(300)
def test_a_stream_that_sends_the_end_after_the_match_is_over_sends_what_a_fresh_one_would(app, client):
    alpha = register(client, "alpha")
    match_id, table0, table1 = start_match(client, alpha)
    resign(client, table0, alpha)

    # the stream is answered while the match runs (the seal is asked before its first byte) ...
    stream = client.get(f"/games/{table0}/stream?once=1", token=alpha, buffered=False)
    assert stream.status_code == 200
    # ... and read after the match ended
    resign(client, table1, alpha)
    assert client.get(f"/matches/{match_id}").get_json()["status"] == "over"
    try:
        late = messages(b"".join(stream.response).decode())
    finally:
        stream.close()
    fresh = messages(client.get(f"/games/{table0}/stream?once=1", token=alpha).get_data(as_text=True))
    assert late == fresh
    by_type = {m["event"]: m["data"]["data"] for m in late}
    assert by_type["game_resigned"]["seed"] and len(by_type["hand_dealt"]["deck"]) == 52
    assert "sealed" not in by_type
