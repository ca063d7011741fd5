"""GET /games while a match is in play, on a real Redis: the match's games are sealed and left out
of the list *before* a page is cut, so a page holds up to ``limit`` games the caller may see even
when many sealed games are newer than them; walking the cursors lists every visible game once.
A page is shorter than ``limit`` (with a ``next_cursor``) only when the listing reached the most
index entries one request reads. Once the match is over, its games are listed like any other.

No worker runs: the match's account seat never moves, so its games stay in play (and sealed) until
that bot resigns them.
"""

from __future__ import annotations

import pytest
from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)

from service.games import LIST_SCAN_MAX
from service.rules import duplicate as D

BOARDS = 20  # 40 games of gin-rami, all started at once (the window of a match with a bot account)


def walk(client, query: str, limit: int) -> list[dict]:
    """Every page of GET /games?<query>&limit=<limit>, following next_cursor: the pages' bodies."""
    pages, cursor = [], None
    while True:
        url = f"/games?{query}limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        resp = client.get(url)
        assert resp.status_code == 200, resp.get_data(as_text=True)
        body = resp.get_json()
        assert len(body["games"]) <= limit
        pages.append(body)
        cursor = body["next_cursor"]
        if cursor is None:
            return pages
        assert len(pages) < 200, "the walk does not end"


def ids_of(pages: list[dict]) -> list[str]:
    return [g["game_id"] for page in pages for g in page["games"]]


def public_game(client) -> str:
    resp = client.post("/games", json={"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["game_id"]


@pytest.mark.timeout(300)
def test_sealed_match_games_never_empty_a_page_and_the_cursor_walk_lists_every_visible_game_once(app, client):
    older = [public_game(client) for _ in range(3)]
    bot = client.post("/bots", json={"name": "alpha", "description": "never moves", "owner": "tests"})
    assert bot.status_code == 201, bot.get_data(as_text=True)
    alpha = bot.get_json()["token"]
    made = client.post("/matches", json={"variant": "gin-rami", "participants": ["alpha", "basic"],
                                         "boards": BOARDS, "rated": False}, token=alpha)
    assert made.status_code == 201, made.get_data(as_text=True)
    match_id = made.get_json()["match_id"]
    match_games = [D.game_id_for(match_id, b, t) for b in range(BOARDS) for t in range(2)]
    for game_id in match_games:  # every game of the match exists, and is sealed
        resp = client.get(f"/games/{game_id}")
        assert resp.status_code == 403 and resp.get_json()["code"] == "match_game_sealed"
    newer = public_game(client)
    visible = [newer, *reversed(older)]  # newest first

    # the first page holds two public games, though 40 sealed games sit between them and the older ones
    first = client.get("/games?limit=2").get_json()
    assert [g["game_id"] for g in first["games"]] == visible[:2]
    assert first["next_cursor"] is not None

    for query in ("", "status=playing&", "variant=gin-rami&", "status=playing&variant=gin-rami&"):
        for limit in (1, 2, 3, 100):
            pages = walk(client, query, limit)
            assert ids_of(pages) == visible, (query, limit)  # each once, newest first, none sealed
            # the bound (LIST_SCAN_MAX entries) is never reached here: every page but the last is full
            assert all(len(p["games"]) == limit for p in pages[:-1]), (query, limit)

    # a listing that may read only 10 entries of the index per request: pages are cut short where
    # the bound is reached, with a next_cursor, and the walk still lists every visible game once
    games = app.extensions["ginbox"].games
    games.list_scan_max = 10
    try:
        for limit in (1, 2, 3):
            pages = walk(client, "", limit)
            assert ids_of(pages) == visible, limit
            assert any(len(p["games"]) < limit and p["next_cursor"] for p in pages), limit
        short = client.get("/games?limit=3").get_json()
        # the 10 entries read: the newest public game, then 9 of the match's
        assert [g["game_id"] for g in short["games"]] == visible[:1]
        assert short["next_cursor"] is not None
    finally:
        games.list_scan_max = LIST_SCAN_MAX

    # the bot resigns every game of the match: the match is over, and its games are listed
    for game_id in match_games:
        resp = client.post(f"/games/{game_id}/moves", json={"type": "resign"}, token=alpha)
        assert resp.status_code == 200, resp.get_data(as_text=True)
    match = client.get(f"/matches/{match_id}").get_json()
    assert match["status"] == "over", match
    every = ids_of(walk(client, "", 7))
    assert sorted(every) == sorted([*visible, *match_games]) and len(every) == len(set(every))
    assert every[0] == newer and every[-3:] == visible[1:]
