"""A board game given up is a forfeit, through the API on a real Redis (service/docs/BOTS.md: Forfeits).

A match's board game that a seat resigns, or that is abandoned while the seat's move is awaited,
scores for the board as a forfeit by that seat: the other seat scores the largest bonus of the
game's options (gin-rami: big gin, 30) plus the forfeiting seat's least deadwood at that moment.
Standings and ratings follow. A rated game outside a match is lost by the seat that resigns it, or
whose move it awaited when it was abandoned, whatever the points. No worker runs: the two bot
accounts move only when the test moves for them. The deadwood is worked out with the tests' own
brute-force card maths, apart from the engine.
"""

from __future__ import annotations

import pytest
from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.cardmath import min_deadwood

from service.rules import duplicate as D

BIG_GIN = 30  # gin-rami's largest bonus by default (gin 20, big gin 30, undercut 10)


def register(client, name: str) -> str:
    resp = client.post("/bots", json={"name": name})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["token"]


def challenge(client, tokens: dict, body: dict) -> dict:
    """beta challenges alpha, alpha accepts: the answer names the match or the game."""
    made = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", **body}, token=tokens["beta"])
    assert made.status_code == 201, made.get_data(as_text=True)
    accepted = client.post(f"/challenges/{made.get_json()['challenge_id']}/accept", token=tokens["alpha"])
    assert accepted.status_code == 200, accepted.get_data(as_text=True)
    return accepted.get_json()


def hand(client, game_id: str, token: str) -> list[str]:
    view = client.get(f"/games/{game_id}", token=token)
    assert view.status_code == 200, view.get_data(as_text=True)
    return view.get_json()["hand"]


def resign(client, game_id: str, token: str) -> None:
    resp = client.post(f"/games/{game_id}/moves", json={"type": "resign"}, token=token)
    assert resp.status_code == 200, resp.get_data(as_text=True)


def ratings(client) -> dict:
    return {r["name"]: r for r in client.get("/ratings?variant=gin-rami").get_json()["ratings"]}


@pytest.fixture
def tokens(client):
    return {"alpha": register(client, "alpha"), "beta": register(client, "beta")}


@pytest.mark.timeout(120)
def test_resigning_both_tables_of_a_board_loses_the_board_by_both_forfeits(client, tokens):
    match_id = challenge(client, tokens, {"boards": 1})["match_id"]
    table0, table1 = (D.game_id_for(match_id, 0, table) for table in range(2))
    # the match is beta against alpha: beta sits seat 0 at table 0 and seat 1 at table 1
    deadwood0 = min_deadwood(hand(client, table0, tokens["beta"]))
    deadwood1 = min_deadwood(hand(client, table1, tokens["beta"]))

    resign(client, table0, tokens["beta"])
    resign(client, table1, tokens["beta"])

    match = client.get(f"/matches/{match_id}").get_json()
    assert match["status"] == "over"
    board = match["board_results"][0]
    # each table: alpha scores 30 plus beta's deadwood (before: [0, 0] at both, a level board)
    assert [t["points"] for t in board["tables"]] == [[0, BIG_GIN + deadwood0], [BIG_GIN + deadwood1, 0]]
    lost = 2 * BIG_GIN + deadwood0 + deadwood1
    assert board["scores"] == {"beta": -lost, "alpha": lost}
    assert {s["name"]: s["total"] for s in match["standings"]} == {"beta": -lost, "alpha": lost}
    # the board is a game alpha won: its rating rises, beta's falls (a level board left both at 1500)
    rated = ratings(client)
    assert rated["alpha"]["rating"] > 1500 > rated["beta"]["rating"]


@pytest.mark.timeout(120)
def test_a_board_game_abandoned_on_a_seats_move_is_that_seats_forfeit(app, client, tokens):
    match_id = challenge(client, tokens, {"boards": 1})["match_id"]
    table0 = D.game_id_for(match_id, 0, 0)
    view = client.get(f"/games/{table0}", token=tokens["beta"]).get_json()
    assert view["to_act"] == [0] and view["viewer"] == 0  # beta, the non-dealer, is to act on the upcard
    deadwood = min_deadwood(view["hand"])

    games = app.extensions["ginbox"].games
    assert games.abandon_if_idle(table0, 0, 2**62)  # as the sweeper does once the abandon time is past

    # table 1 seats alpha, beta: alpha holds seat 0's cards there (beta's at table 0) and resigns
    table1 = D.game_id_for(match_id, 0, 1)
    assert sorted(hand(client, table1, tokens["alpha"])) == sorted(view["hand"])
    resign(client, table1, tokens["alpha"])
    match = client.get(f"/matches/{match_id}").get_json()
    # table 0: beta forfeits, alpha scores 30 plus beta's deadwood (before: [0, 0]); table 1 the same
    # cards' forfeit, to beta; the board is level
    assert [t["points"] for t in match["board_results"][0]["tables"]] == [[0, BIG_GIN + deadwood],
                                                                         [0, BIG_GIN + deadwood]]
    assert match["board_results"][0]["scores"] == {"beta": 0, "alpha": 0}


# slow: a randomly dealt game played move by move over HTTP until a hand scores (1 to 23 s)
@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_rated_game_is_lost_by_the_seat_that_resigns_even_ahead_on_points(client, tokens):
    # a game to 1000: beta (seat 0, the challenger) plays until a hand scores, then whoever leads resigns
    game_id = challenge(client, tokens, {"options": {"target_score": 1000}})["game_id"]
    seat_tokens = [tokens["beta"], tokens["alpha"]]
    for _ in range(3000):
        view = client.get(f"/games/{game_id}").get_json()
        if any(r.get("winner") is not None for r in view["hand_results"]):
            break
        seat = view["to_act"][0]
        mine = client.get(f"/games/{game_id}", token=seat_tokens[seat]).get_json()
        moves = mine["legal_moves"]
        move = next((m for m in moves if m["type"] == "knock"),
                    next((m for m in moves if m["type"] in ("pass_upcard", "draw_stock")), moves[-1]))
        resp = client.post(f"/games/{game_id}/moves", json=move, token=seat_tokens[seat])
        assert resp.status_code == 200, resp.get_data(as_text=True)
    scores = client.get(f"/games/{game_id}").get_json()["scores"]
    leader = 0 if scores[0] > scores[1] else 1
    assert scores[leader] > scores[1 - leader]  # one hand scored: only one seat has points

    resign(client, game_id, seat_tokens[leader])

    final = client.get(f"/games/{game_id}").get_json()
    assert final["status"] == "over" and final["winner"] == 1 - leader and final["scores"] == scores
    names = ["beta", "alpha"]
    rated = ratings(client)
    # before: rated by points alone, the leader that resigned was rated the winner
    assert rated[names[1 - leader]]["rating"] > 1500 > rated[names[leader]]["rating"]


@pytest.mark.timeout(120)
def test_a_rated_game_abandoned_on_a_seats_move_is_lost_by_that_seat(app, client, tokens):
    game_id = challenge(client, tokens, {})["game_id"]
    view = client.get(f"/games/{game_id}").get_json()
    awaited = view["to_act"][0]
    assert view["scores"] == [0, 0]

    assert app.extensions["ginbox"].games.abandon_if_idle(game_id, 0, 2**62)

    final = client.get(f"/games/{game_id}").get_json()
    assert final["status"] == "over" and final["winner"] is None and final["end"]["reason"] == "abandoned"
    names = ["beta", "alpha"]  # beta challenged: seat 0
    rated = ratings(client)
    # before: level on points, a draw that left both at 1500
    assert rated[names[1 - awaited]]["rating"] > 1500 > rated[names[awaited]]["rating"]
