"""GET /games says how a game that is over ended (``end``, as in the view) beside its ``winner``, so
that a lobby can say "bob won: ann resigned" rather than only the scores, which a resignation leaves
as they stood."""

from __future__ import annotations

import json

from support.decks import build_deck
from support.gameplay import create_game

# RULES.md worked example "A knock, with lay-offs": seat 0 knocks with K = 2 against D = 29 and
# scores 29 - 2 = 27 in hand 1 (seat 1 deals it).
KNOCK_HAND = build_deck("AC 2C 3C 7D 7H 7S 4S 5S 6S 9H".split(), "2S 3S 4C 7C QD QH QS KH KS 9C".split(),
                        "JD", ["2D"])


def _listed(api) -> dict[str, dict]:
    resp = api.get("/games", query_string={"limit": 100})
    assert resp.status_code == 200
    return {g["game_id"]: g for g in resp.get_json()["games"]}


def _resigned_after_one_hand(api):
    """ann (seat 0) wins hand 1 by 27, then resigns: bob wins with 0 to ann's 27."""
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], decks=[KNOCK_HAND], first_dealer=1)
    g.move(0, {"type": "pass_upcard"})
    g.move(1, {"type": "pass_upcard"})
    g.move(0, {"type": "draw_stock"})
    g.move(0, {"type": "knock", "discard": "9H", "melds": None})
    g.move(0, {"type": "resign"})
    return g


def test_a_resigned_game_is_listed_with_its_winner_and_who_resigned(api):
    g = _resigned_after_one_hand(api)
    playing = create_game(api, "gin-rami", [{"name": "cat"}, {"name": "dan"}])
    listed = _listed(api)
    over = listed[g.game_id]
    assert over["status"] == "over"
    # the loser has the higher score: only winner and end say who won
    assert over["scores"] == [27, 0] and over["winner"] == 1
    assert over["end"] == {"reason": "resigned", "resigned": 0, "idle_s": None}
    assert over["end"] == api.get(f"/games/{g.game_id}").get_json()["end"]
    assert listed[playing.game_id]["end"] is None and listed[playing.game_id]["winner"] is None


def test_an_over_game_whose_summary_predates_its_end_is_completed_from_the_log(api, redis_conn, key_prefix):
    g = _resigned_after_one_hand(api)
    waiting = create_game(api, "gin-rami", [{"name": "eve"}, None])
    for game_id in (g.game_id, waiting.game_id):
        meta = f"{key_prefix}:{{{game_id}}}:meta"
        # what an older server left in the game's meta hash: a summary without end
        summary = json.loads(redis_conn.hget(meta, "summary"))
        del summary["end"]
        redis_conn.hset(meta, "summary", json.dumps(summary))
    listed = _listed(api)
    assert listed[g.game_id]["end"] == {"reason": "resigned", "resigned": 0, "idle_s": None}
    assert listed[g.game_id]["winner"] == 1
    assert listed[waiting.game_id]["end"] is None
    assert listed[waiting.game_id]["players"] == [{"name": "eve"}, None]
