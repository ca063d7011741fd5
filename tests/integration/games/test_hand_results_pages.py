"""A view carries the latest 8 hands' results; GET /games/{id}/hand-results reads them all, a page at a
time, cut from the caller's own view (RULES.md §1: cards laid down at a hand's end are public).

The game is dealt from one deck over and over, so that every hand is a knock on the first draw:
the non-dealer knocks and wins 27, then deals the next hand, so the seats take turns at winning.
Seat 0 reaches the target of 150 with its sixth win, in hand 11.
"""

from __future__ import annotations

import json
import re

from support.decks import QUICK_KNOCK, quick_knock_moves
from support.gameplay import create_game

HANDS = 11
IN_VIEW = 8
NEXT = re.compile(r'^</games/([A-Za-z0-9_-]{16})/hand-results\?offset=([0-9]+)&limit=([0-9]+)>; rel="next"$')


def play_hand(g, hand_no: int) -> dict:
    """The hand's four moves; the knocker's view after the knock."""
    for seat, move in quick_knock_moves(hand_no):
        view = g.move(seat, move)
    return view


def new_game(api):
    return create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], decks=[QUICK_KNOCK] * HANDS,
                       first_dealer=1, options={"target_score": 150})


def pages(api, game_id: str, limit: int, token: str | None = None) -> tuple[list[dict], list[dict]]:
    """Every page from offset 0, following the Link headers: (the pages, the results joined)."""
    got, results = [], []
    url = f"/games/{game_id}/hand-results?offset=0&limit={limit}"
    while url is not None:
        resp = api.get(url, token=token)
        assert resp.status_code == 200, resp.get_data(as_text=True)
        assert "Authorization" in resp.headers["Vary"]
        body = resp.get_json()
        got.append(body)
        results += body["hand_results"]
        link = resp.headers.get("Link")
        url = None
        if link is not None:
            m = NEXT.match(link)
            assert m and m.group(1) == game_id and int(m.group(2)) == body["offset"] + limit, link
            url = link[1:link.index(">")]
    return got, results


def test_a_view_carries_the_latest_eight_results_and_the_route_pages_through_them_all(api):
    g = new_game(api)
    for hand_no in range(1, HANDS):
        mine = play_hand(g, hand_no)
        shown = min(hand_no, IN_VIEW)
        assert mine["hand_results_total"] == hand_no
        assert mine["hand_results_from"] == hand_no - shown
        assert [r["hand_no"] for r in mine["hand_results"]] == list(range(hand_no - shown + 1, hand_no + 1))
        assert mine["last_hand"] == mine["hand_results"][-1]

    # ten hands played, the game still on: each view holds hands 3 to 10
    spectator, seat0 = g.view(None), g.view(0)
    assert spectator["status"] == "playing" and spectator["hand_no"] == HANDS
    for view in (spectator, seat0):
        assert (view["hand_results_total"], view["hand_results_from"]) == (10, 2)
        assert [r["hand_no"] for r in view["hand_results"]] == list(range(3, 11))
    # the view's winners take turns, seat 0 winning the odd hands, each for 27
    assert [(r["winner"], r["points"]) for r in spectator["hand_results"]] == [((n + 1) % 2, 27) for n in range(3, 11)]

    # the spectator's pages hold what the spectator's view holds, and no more than a seat's do
    _, watched = pages(api, g.game_id, 4)
    _, seated = pages(api, g.game_id, 4, token=g.token(0))
    assert [r["hand_no"] for r in watched] == list(range(1, 11))
    assert watched[2:] == spectator["hand_results"]
    assert seated == watched
    # the seat's hand, which the spectator's view hides, has no place in a page
    assert seat0["hand"] and spectator["hand"] is None
    page = api.get(f"/games/{g.game_id}/hand-results", query_string={"offset": 0, "limit": 200}).get_json()
    assert set(page) == {"game_id", "version", "total", "offset", "hand_results"}
    assert (page["game_id"], page["version"], page["total"], page["offset"]) == (g.game_id, spectator["version"], 10, 0)

    final = play_hand(g, HANDS)
    assert final["status"] == "over" and final["winner"] == 0 and final["scores"] == [162, 135]
    assert (final["hand_results_total"], final["hand_results_from"]) == (HANDS, HANDS - IN_VIEW)

    # the pages joined are the hands the export's log scored, in order
    got, joined = pages(api, g.game_id, 3)
    assert [p["offset"] for p in got] == [0, 3, 6, 9] and [len(p["hand_results"]) for p in got] == [3, 3, 3, 2]
    assert {p["total"] for p in got} == {HANDS}
    lines = [json.loads(x) for x in api.get(f"/games/{g.game_id}/export").get_data(as_text=True).splitlines()]
    scored = [x["data"] for x in lines if x["type"] == "hand_scored"]
    assert len(scored) == len(joined) == HANDS
    for result, event in zip(joined, scored):
        for key in ("hand_no", "outcome", "knocker", "defender", "winner", "points", "scores", "hands"):
            assert result[key] == event[key], (key, result["hand_no"])
    assert joined[-IN_VIEW:] == final["hand_results"]


def test_a_page_past_the_last_result_is_empty_and_an_unchanged_page_answers_304(api):
    g = new_game(api)
    play_hand(g, 1)
    past = api.get(f"/games/{g.game_id}/hand-results", query_string={"offset": 5})
    assert past.status_code == 200 and "Link" not in past.headers
    assert past.get_json()["hand_results"] == [] and past.get_json()["total"] == 1
    first = api.get(f"/games/{g.game_id}/hand-results")
    assert first.status_code == 200 and len(first.get_json()["hand_results"]) == 1
    again = api.get(f"/games/{g.game_id}/hand-results", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.headers["ETag"] == first.headers["ETag"]
    play_hand(g, 2)
    later = api.get(f"/games/{g.game_id}/hand-results", headers={"If-None-Match": first.headers["ETag"]})
    assert later.status_code == 200 and len(later.get_json()["hand_results"]) == 2


def test_a_bad_offset_or_limit_is_refused_and_changes_nothing(api):
    g = new_game(api)
    play_hand(g, 1)
    before = api.get(f"/games/{g.game_id}")
    for query in ("offset=-1", "limit=0", "limit=201", "limit=abc", "offset=1.5", "limit=2&limit=3", "page=2"):
        resp = api.get(f"/games/{g.game_id}/hand-results?{query}")
        assert resp.status_code == 400, query
        assert resp.mimetype == "application/problem+json"
        assert resp.get_json()["code"] == "invalid_query", query
    after = api.get(f"/games/{g.game_id}")
    assert after.headers["ETag"] == before.headers["ETag"] and after.get_json() == before.get_json()
    missing = api.get("/games/nosuchgame000000/hand-results")
    assert missing.status_code == 404 and missing.get_json()["code"] == "game_not_found"
    stranger = api.get(f"/games/{g.game_id}/hand-results", token="not-a-seat-token")
    assert stranger.status_code == 401
