"""GET /games (pages, filters, Link header), and the audit of a finished game checked by hand."""

from __future__ import annotations

import hashlib
import random
import re

from support.decks import build_deck
from support.gameplay import create_game
from support.randomplay import choose_move

GIN_DECK = build_deck("AC 2C 3C 4D 4H 4S 7H 8H 9H KS".split(), "5C 6D 8S JD QC KD 2H 3S 9D TC".split(), "TH")


def _finish(g):
    """Seat 1 takes the upcard TH and goes gin discarding KS: 20 points, target 1 reached."""
    g.move(1, {"type": "take_upcard"})
    g.move(1, {"type": "knock", "discard": "KS", "melds": None})


def _all_pages(api, **query):
    games, seen_links = [], 0
    url, params = "/games", {**query, "limit": 2}
    while True:
        resp = api.get(url, query_string=params)
        assert resp.status_code == 200, resp.get_data(as_text=True)
        body = resp.get_json()
        games += body["games"]
        assert len(body["games"]) <= 2
        if body["next_cursor"] is None:
            assert "Link" not in resp.headers
            return games, seen_links
        link = re.match(r'<([^>]+)>; rel="next"', resp.headers["Link"])
        assert link, resp.headers.get("Link")
        seen_links += 1
        url, params = link.group(1), None


def test_listing_pages_through_every_game_once_newest_first_and_filters(api):
    waiting = create_game(api, "gin-rami", [{"name": "a"}, None])
    playing = [create_game(api, "gin-rami", [{"name": "a"}, {"name": "b"}]) for _ in range(2)]
    three = create_game(api, "three-hand", [{"name": "a"}, {"name": "b"}, {"name": "c"}])
    over = create_game(api, "gin-rami", [{"name": "a"}, {"name": "b"}], first_dealer=0,
                       options={"target_score": 1}, decks=[GIN_DECK])
    _finish(over)
    made = [waiting, *playing, three, over]

    games, links = _all_pages(api)
    assert links >= 2, "five games at two a page need at least two next links"
    ids = [g["game_id"] for g in games]
    assert sorted(ids) == sorted(g.game_id for g in made), "every game exactly once"
    created = [g["created"] for g in games]
    assert created == sorted(created, reverse=True), "newest first"
    by_id = {g["game_id"]: g for g in games}
    assert by_id[over.game_id]["status"] == "over"
    assert by_id[over.game_id]["version"] == over.version()
    assert by_id[waiting.game_id]["status"] == "waiting"

    assert [g["game_id"] for g in _all_pages(api, status="waiting")[0]] == [waiting.game_id]
    assert [g["game_id"] for g in _all_pages(api, status="over")[0]] == [over.game_id]
    assert {g["game_id"] for g in _all_pages(api, status="playing")[0]} == \
        {playing[0].game_id, playing[1].game_id, three.game_id}
    assert [g["game_id"] for g in _all_pages(api, variant="three-hand")[0]] == [three.game_id]
    assert {g["game_id"] for g in _all_pages(api, status="playing", variant="gin-rami")[0]} == \
        {playing[0].game_id, playing[1].game_id}

    # a game that ends moves from the "playing" listing to the "over" one
    resp = api.post(f"/games/{waiting.game_id}/seats/1", json={"name": "b"})
    assert resp.status_code == 201
    assert waiting.game_id in {g["game_id"] for g in _all_pages(api, status="playing")[0]}
    assert _all_pages(api, status="waiting")[0] == []


def test_audit_of_a_seeded_game_reveals_a_seed_matching_the_commitment(api):
    g = create_game(api, "gin-rami", [{"name": "a"}, {"name": "b"}], options={"target_score": 1},
                    decks=[GIN_DECK], first_dealer=0)
    commitment = g.created["commitment"]
    _finish(g)
    report = api.get(f"/games/{g.game_id}/audit").get_json()
    # the commitment published at creation is SHA-256 of the seed revealed at the end
    assert hashlib.sha256(bytes.fromhex(report["seed"])).hexdigest() == commitment == report["commitment"]
    assert report["ok"] and report["commitment_ok"] and report["deals_ok"] and report["replay_ok"]


def test_audit_of_a_randomly_dealt_game_checks_its_deals(api):
    g = create_game(api, "gin-rami", [{"name": "a"}, {"name": "b"}], options={"target_score": 1})
    assert g.created["randomly_dealt"] is True
    commitment = g.created["commitment"]
    rng = random.Random(9)
    for _ in range(400):
        v = g.view(None)
        if v["status"] == "over":
            break
        seat = v["to_act"][0]
        g.move(seat, choose_move(g.view(seat), rng))
    report = api.get(f"/games/{g.game_id}/audit").get_json()
    assert hashlib.sha256(bytes.fromhex(report["seed"])).hexdigest() == commitment
    assert report["ok"] and report["deals_ok"] and report["replay_ok"]
    assert any(c["name"].startswith("deal_") for c in report["checks"])


LOBBY_FIELDS = ("players", "scores", "hand_no", "to_act", "winner", "end")


def test_a_listing_carries_what_a_lobby_shows_as_the_spectator_sees_it(api):
    waiting = create_game(api, "gin-rami", [{"name": "ann"}, None])
    three = create_game(api, "three-hand", [{"name": "a"}, None, {"name": "c"}])
    over = create_game(api, "gin-rami", [{"name": "a"}, {"name": "b"}], first_dealer=0,
                       options={"target_score": 1}, decks=[GIN_DECK])
    _finish(over)
    by_id = {g["game_id"]: g for g in _all_pages(api)[0]}

    # worked out from the games as created and played above
    assert {k: by_id[waiting.game_id][k] for k in LOBBY_FIELDS} == {
        "players": [{"name": "ann"}, None], "scores": [0, 0], "hand_no": 0, "to_act": [], "winner": None,
        "end": None}
    assert by_id[three.game_id]["players"] == [{"name": "a"}, None, {"name": "c"}]
    assert by_id[three.game_id]["scores"] == [0, 0, 0]
    assert (by_id[over.game_id]["winner"], by_id[over.game_id]["hand_no"], by_id[over.game_id]["to_act"]) == (1, 1, [])
    assert by_id[over.game_id]["end"] == {"reason": "target_score", "resigned": None, "idle_s": None}
    # and nothing in it that the spectator's view does not show
    for game in (waiting, three, over):
        view = api.get(f"/games/{game.game_id}").get_json()
        assert {k: by_id[game.game_id][k] for k in LOBBY_FIELDS} == {k: view[k] for k in LOBBY_FIELDS}


def test_a_game_recorded_before_lobby_summaries_is_listed_from_its_log(api, redis_conn, key_prefix):
    game = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    game.move(game.view()["to_act"][0], {"type": "pass_upcard"})
    # what an older server left in the game's meta hash: no summary field
    assert redis_conn.hdel(f"{key_prefix}:{{{game.game_id}}}:meta", "summary") == 1
    [listed] = _all_pages(api)[0]
    view = api.get(f"/games/{game.game_id}").get_json()
    assert {k: listed[k] for k in LOBBY_FIELDS} == {k: view[k] for k in LOBBY_FIELDS}
    assert listed["players"] == [{"name": "ann"}, {"name": "bob"}]
