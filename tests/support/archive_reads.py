"""Every read of a game over HTTP, gathered to compare a game before and after it is archived."""

from __future__ import annotations

import random

from support.gameplay import create_game
from support.randomplay import choose_move


def play_to_the_end(api, variant: str, seed: int, advice_every: int = 0, **extra) -> tuple[str, dict]:
    """A game of people playing random legal moves to its end: (game id, {seat: token}).

    In three-hand the advisor gives advice before every ``advice_every``-th move (0: never).
    """
    seats = [{"name": f"p{i}"} for i in range(3 if variant == "three-hand" else 2)]
    g = create_game(api, variant, seats, **extra)
    rng = random.Random(seed)
    for n in range(5000):
        public = g.view(None)
        if public["status"] == "over":
            return g.game_id, g.tokens
        if advice_every and n % advice_every == 0 and (public.get("roles") or {}).get("advisor") is not None:
            advisor = public["roles"]["advisor"]
            resp = api.post(f"/games/{g.game_id}/advice", json={"text": f"advice {n}: keep the {rng.choice('AKQJ')}s"},
                            headers={"Authorization": f"Bearer {g.tokens[advisor]}"})
            assert resp.status_code == 200, resp.get_data(as_text=True)
        seat = public["to_act"][0]
        g.move(seat, choose_move(g.view(seat), rng))
    raise AssertionError("the game did not end")


def every_read(api, game_id: str, tokens: dict) -> dict:
    """What every reader gets of the game: views now and at every version, events pages, the live
    stream, advice, the export's bytes and the audit (status, headers that matter, body)."""
    readers = [None, *sorted(tokens)]
    out: dict = {}

    def get(path: str, seat) -> tuple:
        headers = {"Authorization": f"Bearer {tokens[seat]}"} if seat is not None else {}
        resp = api.get(path, headers=headers)
        return resp.status_code, resp.headers.get("ETag"), resp.headers.get("Content-Type"), resp.get_data()

    version = api.get(f"/games/{game_id}").get_json()["version"]
    for seat in readers:
        out[("view", seat)] = get(f"/games/{game_id}", seat)
        for v in range(1, version + 1):
            out[("state", seat, v)] = get(f"/games/{game_id}/state?version={v}", seat)
        for after in range(0, version + 1, 37):
            out[("events", seat, after)] = get(f"/games/{game_id}/events?after={after}&limit=50", seat)
        out[("stream", seat)] = get(f"/games/{game_id}/stream?once=1", seat)
        out[("stream", seat, version // 2)] = get(f"/games/{game_id}/stream?once=1&after={version // 2}", seat)
        out[("advice", seat)] = get(f"/games/{game_id}/advice", seat)
    out["export"] = get(f"/games/{game_id}/export", None)
    out["audit"] = get(f"/games/{game_id}/audit", None)
    return out
