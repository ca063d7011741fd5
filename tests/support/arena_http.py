"""Small HTTP steps the arena's tests share: a bot account, its stream, a person's turns, a seat's view.

Each takes the test's client (a ValidatingClient on the app: every answer is checked against the
spec) and asserts the status it expects, so that a failing step names the request that failed.
"""

from __future__ import annotations

import json


def register(client, name: str) -> str:
    """A new bot account ``name``; its token."""
    resp = client.post("/bots", json={"name": name})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["token"]


def stream_events(client, token: str) -> list[tuple[str, dict]]:
    """(type, data) of every event on the bot's stream so far (read page after page with ``after``)."""
    out, after = [], "0"
    while True:
        text = client.get(f"/bots/me/stream?once=1&after={after}", token=token).get_data(as_text=True)
        page = []
        for block in text.split("\n\n"):
            fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
            if "event" in fields:
                page.append((fields["event"], json.loads(fields["data"])))
                after = fields["id"]
        if not page:
            return out
        out.extend(page)


def turns(client, match_id: str, token: str) -> dict:
    """``GET /matches/{id}/turns`` with a person's token (200 expected)."""
    resp = client.get(f"/matches/{match_id}/turns", token=token)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def view(client, game_id: str, token: str) -> dict:
    """A seat's view of a game (200 expected)."""
    resp = client.get(f"/games/{game_id}", token=token)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def short_game_move(moves: list[dict], hand: list[str] | None = None) -> dict:
    """Knock when allowed, else pass the upcard or draw from the stock, else discard: given the
    mover's ``hand``, the card that leaves the least deadwood, else the first card offered.

    With the hand, about 97 hands in 100 end in a knock; discarding the first card offered, some
    three in four are drawn, and a board (played to the first hand that scores) could take dozens
    of hands."""
    knock = next((m for m in moves if m["type"] == "knock"), None)
    if knock:
        return knock
    step = next((m for m in moves if m["type"] in ("pass_upcard", "draw_stock")), None)
    if step:
        return step
    discards = [m for m in moves if m["type"] == "discard"]
    if hand and discards:
        from service.rules.melds import deadwood

        return min(discards, key=lambda m: deadwood([c for c in hand if c != m["card"]]))
    return moves[0]
