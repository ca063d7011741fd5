"""GET /games says of each game whether it was randomly dealt (``randomly_dealt``, as in the view):
a game created with decks, roles or a first dealer is dealt as its creator chose, who may know
every card, and whoever takes one of its open seats should be told before sitting down."""

from __future__ import annotations

import json

from service.store.repository import GameRepository
from support.decks import ALL_CODES
from support.gameplay import create_game
from support.openspiel_play import PLAYTHROUGH


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


def test_a_listing_says_which_games_were_imported(api):
    """``imported_from``, as in the view: "openspiel" for a game of POST /games/import, else null."""
    here = create_game(api, "gin-rami", [{"name": "ann"}, None])
    decks = create_game(api, "gin-rami", [{"name": "ann"}, None], decks=[list(ALL_CODES)])
    imported = api.post("/games/import", json={"actions": PLAYTHROUGH})
    assert imported.status_code == 201, imported.get_json()
    imported_id = imported.get_json()["game_id"]
    listed = _listed(api)
    assert listed[imported_id]["imported_from"] == "openspiel"
    assert listed[here.game_id]["imported_from"] is None
    assert listed[decks.game_id]["imported_from"] is None
    for g in (here.game_id, decks.game_id, imported_id):
        assert listed[g]["imported_from"] == api.get(f"/games/{g}").get_json()["imported_from"]


def _forget_imported_from(redis_conn, key_prefix: str, game_id: str) -> None:
    """Leave in the game's meta hash what an older server left: a summary without imported_from."""
    meta = f"{key_prefix}:{{{game_id}}}:meta"
    summary = json.loads(redis_conn.hget(meta, "summary"))
    del summary["imported_from"]
    redis_conn.hset(meta, "summary", json.dumps(summary))


def test_a_summary_recorded_before_it_said_where_the_game_was_dealt_is_completed(api, redis_conn, key_prefix,
                                                                                 monkeypatch):
    here = create_game(api, "gin-rami", [{"name": "ann"}, None])
    imported_id = api.post("/games/import", json={"actions": PLAYTHROUGH}).get_json()["game_id"]
    for g in (here.game_id, imported_id):
        _forget_imported_from(redis_conn, key_prefix, g)
    read = []
    load_state = GameRepository.load_state
    monkeypatch.setattr(GameRepository, "load_state",
                        lambda self, game_id, *a, **kw: read.append(game_id) or load_state(self, game_id, *a, **kw))
    listed = _listed(api)
    # a game randomly dealt was not imported: its summary is completed without reading its log
    assert listed[here.game_id]["imported_from"] is None
    assert here.game_id not in read
    # one not randomly dealt is read from its log
    assert listed[imported_id]["imported_from"] == "openspiel"
    assert imported_id in read
