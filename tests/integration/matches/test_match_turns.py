"""A person finds its turns in a duplicate match with one request: ``GET /matches/{id}/turns``.

On a real Redis, over the validating client (every answer is checked against openapi.yaml). In
gin-rami seat 1 deals first at every table, so the non-dealer at seat 0 is offered the upcard
first: at table 0 of every board that is the person (seated [person, bot]), at table 1 the bot
(seated [bot, person]). Nobody moves but the test: the bot is an outside account.
"""

from __future__ import annotations

import random

from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register, turns, view
from support.randomplay import choose_move

from service.rules import duplicate as D


def person_match(client, person: str, bot: str, bot_token: str, boards: int) -> tuple[str, str]:
    """(match id, the person's token) of a person's challenge the bot accepts."""
    made = client.post("/challenges", json={"to": bot, "variant": "gin-rami", "name": person, "boards": boards})
    assert made.status_code == 201, made.get_data(as_text=True)
    accepted = client.post(f"/challenges/{made.get_json()['challenge_id']}/accept", token=bot_token)
    assert accepted.status_code == 200, accepted.get_data(as_text=True)
    return accepted.get_json()["match_id"], made.get_json()["token"]


def play(client, game_id: str, token: str, move_type: str, version: int) -> None:
    resp = client.post(f"/games/{game_id}/moves", json={"type": move_type}, token=token,
                       headers={"If-Match": f'"{version}"'})
    assert resp.status_code in (200, 201), resp.get_data(as_text=True)


def refused(client, match_id: str, status: int, code: str, **kw) -> dict:
    resp = client.get(f"/matches/{match_id}/turns", **kw)
    assert resp.status_code == status, resp.get_data(as_text=True)
    body = resp.get_json()
    assert body["code"] == code
    return body


def test_the_person_s_turns_are_the_games_where_its_seat_is_to_act_and_follow_the_play(client):
    alpha = register(client, "alpha")
    match_id, ann = person_match(client, "ann", "alpha", alpha, boards=2)
    g = {(b, t): D.game_id_for(match_id, b, t) for b in range(2) for t in range(2)}

    # the window starts all four games: ann is offered the upcard at table 0 of both boards
    # (seat 0 there); at table 1 alpha holds seat 0 and is offered it, and ann waits at seat 1
    listed = turns(client, match_id, ann)
    assert listed["match_id"] == match_id and listed["participant"] == "ann" and listed["status"] == "running"
    v00, v10 = view(client, g[0, 0], ann)["version"], view(client, g[1, 0], ann)["version"]
    assert listed["turns"] == [
        {"game_id": g[0, 0], "board": 0, "table": 0, "seat": 0, "phase": "upcard", "version": v00},
        {"game_id": g[1, 0], "board": 1, "table": 0, "seat": 0, "phase": "upcard", "version": v10},
    ]
    for board in range(2):
        assert view(client, g[board, 1], alpha)["to_act"] == [0]  # alpha's turn: not listed for ann

    # ann passes the upcard at board 0's table 0: the dealer (alpha, seat 1) is offered it there
    play(client, g[0, 0], ann, "pass_upcard", v00)
    assert view(client, g[0, 0], alpha)["to_act"] == [1]
    assert [t["game_id"] for t in turns(client, match_id, ann)["turns"]] == [g[1, 0]]

    # alpha passes too: the non-dealer (ann) begins by drawing from the stock
    play(client, g[0, 0], alpha, "pass_upcard", v00 + 1)
    # alpha passes at board 0's table 1, where ann deals (seat 1): ann is offered the upcard there
    v01 = view(client, g[0, 1], alpha)["version"]
    play(client, g[0, 1], alpha, "pass_upcard", v01)
    assert turns(client, match_id, ann)["turns"] == [
        {"game_id": g[0, 0], "board": 0, "table": 0, "seat": 0, "phase": "draw", "version": v00 + 2},
        {"game_id": g[0, 1], "board": 0, "table": 1, "seat": 1, "phase": "upcard", "version": v01 + 1},
        {"game_id": g[1, 0], "board": 1, "table": 0, "seat": 0, "phase": "upcard", "version": v10},
    ]
    # what is listed is what ann's own view of each game says
    for turn in turns(client, match_id, ann)["turns"]:
        seat_view = view(client, turn["game_id"], ann)
        assert seat_view["viewer"] == turn["seat"] and seat_view["to_act"] == [turn["seat"]]
        assert seat_view["phase"] == turn["phase"] and seat_view["version"] == turn["version"]

    # ann draws at table 0 and is still to act there (to discard)
    play(client, g[0, 0], ann, "draw_stock", v00 + 2)
    assert turns(client, match_id, ann)["turns"][0] == {
        "game_id": g[0, 0], "board": 0, "table": 0, "seat": 0, "phase": "discard", "version": v00 + 3}


def test_a_match_played_to_its_end_by_its_turns_answers_no_turns_and_over(client):
    alpha = register(client, "alpha")
    match_id, ann = person_match(client, "ann", "alpha", alpha, boards=1)
    games = [D.game_id_for(match_id, 0, t) for t in range(2)]
    rng = random.Random(7)
    status, seen = "running", set()
    for _ in range(2000):
        listed = turns(client, match_id, ann)
        status = listed["status"]
        if status == "over":
            break
        for turn in listed["turns"]:
            seen.add((turn["table"], turn["seat"]))
            seat_view = view(client, turn["game_id"], ann)
            move = choose_move(seat_view, rng)
            resp = client.post(f"/games/{turn['game_id']}/moves", json=move, token=ann,
                               headers={"If-Match": f'"{turn["version"]}"'})
            assert resp.status_code in (200, 201), resp.get_data(as_text=True)
        # the games ann was not told of: ann's seat is not to act there
        told = {t["game_id"] for t in listed["turns"]}
        for game_id in games:
            bot_view = view(client, game_id, alpha)
            if game_id not in told and bot_view["status"] == "playing":
                # nobody has moved in it since the listing: ann's seat (the other one) is not to act
                assert 1 - bot_view["viewer"] not in bot_view["to_act"]
            if bot_view["status"] == "playing" and bot_view["viewer"] in bot_view["to_act"]:
                resp = client.post(f"/games/{game_id}/moves", json=choose_move(bot_view, rng),
                                   token=alpha, headers={"If-Match": f'"{bot_view["version"]}"'})
                assert resp.status_code in (200, 201), resp.get_data(as_text=True)
    assert status == "over"
    assert seen == {(0, 0), (1, 1)}  # ann was told of its turns at both tables, in its own seat
    assert turns(client, match_id, ann) == {"match_id": match_id, "participant": "ann", "status": "over",
                                            "turns": []}
    assert client.get(f"/matches/{match_id}").get_json()["status"] == "over"


def test_only_the_person_s_token_reads_its_turns_and_a_refusal_changes_nothing(client):
    alpha = register(client, "alpha")
    beta = register(client, "beta")
    match_id, ann = person_match(client, "ann", "alpha", alpha, boards=1)
    other_id, bob = person_match(client, "bob", "beta", beta, boards=1)
    before = client.get(f"/matches/{match_id}").get_json()["version"]
    game_versions = [view(client, D.game_id_for(match_id, 0, t), alpha)["version"] for t in range(2)]

    # no token, or a malformed Authorization header: 401, with the Bearer challenge
    resp = client.get(f"/matches/{match_id}/turns")
    assert resp.status_code == 401 and resp.get_json()["code"] == "unauthorized"
    assert resp.headers["WWW-Authenticate"].startswith("Bearer")
    refused(client, match_id, 401, "unauthorized", headers={"Authorization": f"Basic {ann}"})
    # a token that holds no person's place in this match: the bot's, another match's person's, garbage
    for token in (alpha, beta, bob, "not-a-token", ann + "x"):
        body = refused(client, match_id, 403, "forbidden", token=token)
        assert "ann" not in body["detail"] and ann not in str(body)
    # the other match answers its own person only
    assert turns(client, other_id, bob)["participant"] == "bob"
    refused(client, other_id, 403, "forbidden", token=ann)
    # the token goes in the header only
    refused(client, match_id, 400, "invalid_query", query_string={"token": ann})

    # an unknown match, a malformed id
    refused(client, "AAAAAAAAAAAAAAAA", 404, "match_not_found", token=ann)
    refused(client, "no-such", 404, "match_not_found", token=ann)

    # nothing moved
    assert client.get(f"/matches/{match_id}").get_json()["version"] == before
    assert [view(client, D.game_id_for(match_id, 0, t), alpha)["version"] for t in range(2)] == game_versions
    assert turns(client, match_id, ann)["participant"] == "ann"


def test_a_match_without_a_person_refuses_every_token(client):
    alpha = register(client, "alpha")
    beta = register(client, "beta")
    _, ann = person_match(client, "ann", "alpha", alpha, boards=1)
    made = client.post("/matches", json={"variant": "gin-rami", "participants": ["beta", "basic"], "boards": 1},
                       token=beta)
    assert made.status_code == 201, made.get_data(as_text=True)
    match_id = made.get_json()["match_id"]
    for token in (beta, alpha, ann, "anything"):
        refused(client, match_id, 403, "forbidden", token=token)
    refused(client, match_id, 401, "unauthorized")
