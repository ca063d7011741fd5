"""GET /games says of each game whether it was randomly dealt (``randomly_dealt``, as in the view):
a game created with decks, roles or a first dealer is dealt as its creator chose, who may know
every card, and whoever takes one of its open seats should be told before sitting down."""

from __future__ import annotations

import json

from support.decks import ALL_CODES
from support.gameplay import create_game


def _listed(api) -> dict[str, dict]:
    resp = api.get("/games", query_string={"limit": 100})
    assert resp.status_code == 200
    return {g["game_id"]: g for g in resp.get_json()["games"]}


def test_a_listing_says_which_games_the_creator_dealt(api):
    random = create_game(api, "gin-rami", [{"name": "ann"}, None])
    decks = create_game(api, "gin-rami", [{"name": "ann"}, None], decks=[list(ALL_CODES)])
    dealer = create_game(api, "gin-rami", [{"name": "ann"}, None], first_dealer=1)
    listed = _listed(api)
    assert listed[random.game_id]["randomly_dealt"] is True
    assert listed[decks.game_id]["randomly_dealt"] is False
    assert listed[dealer.game_id]["randomly_dealt"] is False
    # as the view says
    for g in (random, decks, dealer):
        assert listed[g.game_id]["randomly_dealt"] == api.get(f"/games/{g.game_id}").get_json()["randomly_dealt"]


def test_a_summary_recorded_before_it_said_how_the_game_was_dealt_is_completed_from_the_log(api, redis_conn,
                                                                                              key_prefix):
    g = create_game(api, "gin-rami", [{"name": "ann"}, None], decks=[list(ALL_CODES)])
    meta = f"{key_prefix}:{{{g.game_id}}}:meta"
    # what an older server left in the game's meta hash: a summary without randomly_dealt
    summary = json.loads(redis_conn.hget(meta, "summary"))
    del summary["randomly_dealt"]
    redis_conn.hset(meta, "summary", json.dumps(summary))
    assert _listed(api)[g.game_id]["randomly_dealt"] is False
