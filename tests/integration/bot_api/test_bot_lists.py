"""GET /bots/me/games, /bots/me/challenges and /bots: what a bot reads of its games in play, its
pending challenges and the other accounts, instead of its stream's past."""

from __future__ import annotations

import pytest

from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register


def problem(resp) -> tuple[int, str]:
    return resp.status_code, resp.get_json()["code"]


def challenge(client, to: str, token: str, **more) -> dict:
    resp = client.post("/challenges", json={"to": to, "variant": "gin-rami", **more}, token=token)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()


def own_games(client, token: str, **query) -> dict:
    resp = client.get("/bots/me/games", token=token, query_string=query or None)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def test_a_bots_games_in_play_say_whose_turn_its_deadline_and_its_match(client):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    assert client.patch("/bots/me", json={"accepts_matches": True}, token=beta).status_code == 200
    assert own_games(client, alpha) == {"games": [], "next_cursor": None}
    # a challenge's game with a turn clock of 60 s, and a match of one board (two tables)
    made = challenge(client, "alpha", beta, move_time_s=60)
    game_id = client.post(f"/challenges/{made['challenge_id']}/accept", token=alpha).get_json()["game_id"]
    match = client.post("/matches", json={"variant": "gin-rami", "participants": ["alpha", "beta"], "boards": 1},
                        token=alpha).get_json()
    tables = [t["game_id"] for t in client.get(f"/matches/{match['match_id']}").get_json()["board_results"][0]["tables"]]
    listed = {g["game_id"]: g for g in own_games(client, alpha)["games"]}
    assert set(listed) == {game_id, *tables}
    for gid, entry in listed.items():
        view = client.get(f"/games/{gid}", token=alpha).get_json()
        assert entry["seat"] == view["viewer"] and entry["version"] == view["version"]
        assert entry["to_act"] == view["to_act"] and entry["my_turn"] == (view["viewer"] in view["to_act"])
        assert entry["variant"] == "gin-rami" and entry["status"] == "playing" and entry["phase"] == "upcard"
    # the challenge's game: no match, and the clock's deadline 60 s after its last event
    last_ts = client.get(f"/games/{game_id}/events").get_json()["events"][-1]["ts"]
    assert listed[game_id]["turn_deadline_ms"] == last_ts + 60_000
    assert (listed[game_id]["match_id"], listed[game_id]["board"], listed[game_id]["table"]) == (None, None, None)
    # the match's tables: board 0, tables 0 and 1; a match's clock is its move_time_s, here none
    for table, gid in enumerate(tables):
        assert (listed[gid]["match_id"], listed[gid]["board"], listed[gid]["table"]) == (match["match_id"], 0, table)
        assert listed[gid]["turn_deadline_ms"] is None
    # the seat to act sees its turn; the other does not
    beta_listed = {g["game_id"]: g for g in own_games(client, beta)["games"]}
    assert beta_listed[game_id]["my_turn"] != listed[game_id]["my_turn"]

    # a game that ends leaves the list: its seat to act resigns
    mover = alpha if listed[game_id]["my_turn"] else beta
    assert client.post(f"/games/{game_id}/moves", json={"type": "resign"}, token=mover).status_code == 200
    assert game_id not in {g["game_id"] for g in own_games(client, alpha)["games"]}
    assert game_id not in {g["game_id"] for g in own_games(client, beta)["games"]}


def test_the_games_list_pages_by_cursor_and_forgets_a_game_whose_end_it_never_saw(client, app):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    ids = set()
    for _ in range(3):
        made = challenge(client, "alpha", beta)
        ids.add(client.post(f"/challenges/{made['challenge_id']}/accept", token=alpha).get_json()["game_id"])
    pages, cursor = [], None
    while True:
        page = own_games(client, alpha, limit=2, **({"cursor": cursor} if cursor else {}))
        pages.append([g["game_id"] for g in page["games"]])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    # 3 games, 2 a page: [2], [1]; in id order, each once
    assert [len(p) for p in pages] == [2, 1] and sum(pages, []) == sorted(ids)
    # an id the index holds whose game does not exist (a creation that failed after seating) is dropped
    store = app.extensions["ginbox"].arena.store
    store.seat_bot("alpha", "games", "0" * 16, 1)
    assert "0" * 16 not in {g["game_id"] for g in own_games(client, alpha)["games"]}
    assert store.games_in_play("alpha", None, 10) == sorted(ids)


@pytest.mark.parametrize("query", [{"limit": "0"}, {"limit": "201"}, {"limit": "two"}, {"cursor": "nope"},
                                   {"cursor": "a" * 17}, {"after": "x"}])
def test_a_bad_page_of_the_games_list_is_invalid_query(client, query):  # noqa: F811
    alpha = register(client, "alpha")
    resp = client.get("/bots/me/games", token=alpha, query_string=query)
    assert problem(resp) == (400, "invalid_query") and set(resp.get_json()["errors"]) == set(query)


def test_the_lists_of_ones_own_need_a_bot_token(client):  # noqa: F811
    for path in ("/bots/me/games", "/bots/me/challenges"):
        assert problem(client.get(path)) == (401, "bot_token_required")
        assert problem(client.get(path, token="not-a-bot-token")) == (401, "bot_token_required")


def test_pending_challenges_are_listed_to_and_from_a_bot_until_answered(client):  # noqa: F811
    alpha, beta, gamma = register(client, "alpha"), register(client, "beta"), register(client, "gamma")
    to_alpha = challenge(client, "alpha", beta)
    from_alpha = challenge(client, "gamma", alpha, boards=2)
    by_person = challenge(client, "alpha", None, name="ann")
    mine = client.get("/bots/me/challenges", token=alpha).get_json()
    assert [c["challenge_id"] for c in mine["incoming"]] == [to_alpha["challenge_id"], by_person["challenge_id"]]
    assert [c["challenge_id"] for c in mine["outgoing"]] == [from_alpha["challenge_id"]]
    assert mine["outgoing"][0]["kind"] == "match" and mine["outgoing"][0]["to"] == "gamma"
    assert all(c["status"] == "pending" and "token" not in c for c in mine["incoming"] + mine["outgoing"])
    assert client.get("/bots/me/challenges", token=gamma).get_json()["incoming"][0]["from"] == "alpha"
    # answered or withdrawn, a challenge leaves both lists
    assert client.post(f"/challenges/{to_alpha['challenge_id']}/decline", token=alpha).status_code == 200
    assert client.post(f"/challenges/{from_alpha['challenge_id']}/withdraw", token=alpha).status_code == 200
    mine = client.get("/bots/me/challenges", token=alpha).get_json()
    assert [c["challenge_id"] for c in mine["incoming"]] == [by_person["challenge_id"]] and mine["outgoing"] == []
    assert client.get("/bots/me/challenges", token=gamma).get_json() == {"incoming": [], "outgoing": []}


def test_the_bot_list_pages_by_name_with_ratings_and_last_activity(client):  # noqa: F811
    tokens = {name: register(client, name) for name in ("delta", "Alpha", "beta", "charlie")}
    assert client.patch("/bots/me", json={"accepts_matches": True}, token=tokens["beta"]).status_code == 200
    first = client.get("/bots", query_string={"limit": "3"}).get_json()
    # names as bytes compare: upper case first
    assert [b["name"] for b in first["bots"]] == ["Alpha", "beta", "charlie"] and first["next_cursor"] == "charlie"
    rest = client.get("/bots", query_string={"cursor": "charlie", "limit": "3"}).get_json()
    assert [b["name"] for b in rest["bots"]] == ["delta"] and rest["next_cursor"] is None
    beta = first["bots"][1]
    assert beta == {"name": "beta", "description": "", "accepts_matches": True, "ratings": {}, "last_seen": None,
                    "last_seated": None}
    # beta reads its stream, then plays Alpha a rated game (a challenge between bots) to its end
    assert client.get("/bots/me/stream?once=1", token=tokens["beta"]).status_code == 200
    made = challenge(client, "Alpha", tokens["beta"])
    game_id = client.post(f"/challenges/{made['challenge_id']}/accept", token=tokens["Alpha"]).get_json()["game_id"]
    resigner = next(t for t in (tokens["Alpha"], tokens["beta"])
                    if client.get(f"/games/{game_id}", token=t).get_json()["legal_moves"])
    assert client.post(f"/games/{game_id}/moves", json={"type": "resign"}, token=resigner).status_code == 200
    listed = {b["name"]: b for b in client.get("/bots").get_json()["bots"]}
    assert listed["beta"]["last_seen"] is not None and listed["delta"]["last_seen"] is None
    # both were seated in the game just made (each told at its own moment); delta never was
    assert all(made["created"] <= listed[n]["last_seated"] <= made["created"] + 60_000 for n in ("Alpha", "beta"))
    assert listed["delta"]["last_seated"] is None
    # one game won, one lost: the winner's rating rose above the newcomer's 1500, the loser's fell below
    winner, loser = ("beta", "Alpha") if resigner == tokens["Alpha"] else ("Alpha", "beta")
    assert listed[winner]["ratings"]["gin-rami"]["rating"] > 1500 > listed[loser]["ratings"]["gin-rami"]["rating"]
    assert listed[winner]["ratings"]["gin-rami"]["games"] == 1 and "three-hand" not in listed[winner]["ratings"]


@pytest.mark.parametrize("query", [{"limit": "0"}, {"limit": "101"}, {"cursor": "a b"}, {"cursor": "x"}])
def test_a_bad_page_of_the_bot_list_is_invalid_query(client, query):  # noqa: F811
    resp = client.get("/bots", query_string=query)
    assert problem(resp) == (400, "invalid_query") and set(resp.get_json()["errors"]) == set(query)
