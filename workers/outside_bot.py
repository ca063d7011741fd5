"""A complete bot that plays through the public HTTP API only, as a third party's would.

It needs nothing but the standard library and a seat token::

    python -m workers.outside_bot http://127.0.0.1:8000 GAME_ID SEAT_TOKEN

It polls its view, and when ``legal_moves`` is not empty it picks one: knock whenever a knock
is listed (the discard that leaves the least deadwood), take the upcard or the discard only
when ``POST /analysis/melds`` says it lowers its deadwood, and otherwise discard its highest
unmatched card. Moves carry ``If-Match`` and an ``Idempotency-Key``, so a retry after a lost
answer can never play twice.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
import uuid

VALUES = {**{str(n): n for n in range(2, 10)}, "A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}


class Api:
    """The few calls a bot needs."""

    def __init__(self, base: str, game_id: str, token: str):
        self.base = base.rstrip("/")
        self.game_id = game_id
        self.token = token

    def call(self, method: str, path: str, body=None, headers=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {self.token}",
                                              "Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"{}")

    def view(self):
        return self.call("GET", f"/games/{self.game_id}")[1]

    def deadwood(self, cards):
        return self.call("POST", "/analysis/melds", {"cards": cards})[1]

    def move(self, version: int, command: dict):
        return self.call("POST", f"/games/{self.game_id}/moves", command,
                         {"If-Match": f'"{version}"', "Idempotency-Key": uuid.uuid4().hex})


def choose(api: Api, view: dict) -> dict:
    """One of the view's legal moves."""
    moves = view["legal_moves"]
    types = {m["type"] for m in moves}
    hand = view["hand"]
    knocks = [m for m in moves if m["type"] == "knock"]
    if knocks:
        if any(m["discard"] is None for m in knocks):
            return {"type": "knock", "discard": None}          # big gin: nothing to discard
        best = {d["card"]: d["deadwood"] for d in api.deadwood(hand)["knock_discards"]}
        return min(knocks, key=lambda m: (best.get(m["discard"], 99), m["discard"]))
    if "take_upcard" in types or "draw_discard" in types:
        top = view["discard_top"]
        now = api.deadwood(hand)["deadwood"]
        after = api.deadwood(hand + [top])["deadwood_after_discard"]
        if after < now:
            return {"type": "take_upcard"} if "take_upcard" in types else {"type": "draw_discard"}
        return {"type": "pass_upcard"} if "pass_upcard" in types else {"type": "draw_stock"}
    if "draw_stock" in types:
        return {"type": "draw_stock"}
    discards = [m for m in moves if m["type"] == "discard"]
    unmatched = set(api.deadwood(hand)["deadwood_cards"])
    return max(discards, key=lambda m: (m["card"] in unmatched, VALUES[m["card"][0]], m["card"]))


def play(base: str, game_id: str, token: str, poll_s: float = 0.2, deadline_s: float = 600) -> dict:
    """Play until the game is over; returns the final view."""
    api = Api(base, game_id, token)
    stop = time.monotonic() + deadline_s
    while time.monotonic() < stop:
        view = api.view()
        if view["status"] == "over":
            return view
        if view["legal_moves"]:
            api.move(view["version"], choose(api, view))   # a 409/412 only means: look again
        else:
            time.sleep(poll_s)
    raise TimeoutError("the game did not end in time")


if __name__ == "__main__":
    final = play(*sys.argv[1:4])
    print(json.dumps({"scores": final["scores"], "winner": final["winner"]}))
