"""A person's three-hand duplicate match against a bot account and a built-in policy, played to its end.

On a real Redis with a real ``ginbox worker`` (which plays ``basic``'s seats as RQ jobs), over the
validating client. The person ("ann") challenges the bot account "alpha" to one board with
``"with": ["basic"]``; alpha accepts with its token. The test plays alpha's seats with alpha's
token, found from its own game views, and ann's seats with ann's token, found only through
``GET /matches/{id}/turns``.

What the end must show, from RULES.md §2 and ``service/rules/duplicate.py``: a three-hand board is
played at three tables, the participants (ann, alpha, basic, in the challenge's order) rotated
so that at table t seat s holds participant (s + t) mod 3, with box at seat 0, captain at seat
1 and advisor at seat 2. A board's game ends with its first hand that scores, which is played
between box and captain only: the advisor never scores. A participant's board score is, summed
over the tables, its seat's points minus the mean of the two other seats' points.
"""

from __future__ import annotations

import time

import pytest
from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)
from support.arena_http import register, short_game_move, turns, view

from service.rules import duplicate as D

PARTICIPANTS = ["ann", "alpha", "basic"]
#: each table's seats by hand: table t, seat s holds participant (s + t) mod 3
SEATS = [["ann", "alpha", "basic"], ["alpha", "basic", "ann"], ["basic", "ann", "alpha"]]
BOX, CAPTAIN, ADVISOR = 0, 1, 2
ROUNDS = 6000


def play(client, game_id: str, token: str, seat_view: dict) -> None:
    resp = client.post(f"/games/{game_id}/moves", json=short_game_move(seat_view["legal_moves"], seat_view["hand"]), token=token,
                       headers={"If-Match": f'"{seat_view["version"]}"'})
    assert resp.status_code in (200, 201), resp.get_data(as_text=True)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_person_plays_a_three_hand_match_with_a_bot_account_and_a_policy_to_its_end(client, workers):
    alpha = register(client, "alpha")
    made = client.post("/challenges", json={"to": "alpha", "variant": "three-hand", "name": "ann",
                                            "with": ["basic"], "boards": 1})
    assert made.status_code == 201, made.get_data(as_text=True)
    assert made.get_json()["kind"] == "match" and made.get_json()["with"] == ["basic"]
    ann = made.get_json()["token"]
    accepted = client.post(f"/challenges/{made.get_json()['challenge_id']}/accept", token=alpha)
    assert accepted.status_code == 200, accepted.get_data(as_text=True)
    match_id = accepted.get_json()["match_id"]

    match = client.get(f"/matches/{match_id}").get_json()
    assert [p["name"] for p in match["participants"]] == PARTICIPANTS
    assert [p["kind"] for p in match["participants"]] == ["person", "bot", "policy"]
    assert match["boards"] == 1 and match["games"] == 3 and match["status"] == "running"
    games = [D.game_id_for(match_id, 0, t) for t in range(3)]
    assert [t["game_id"] for t in match["board_results"][0]["tables"]] == games
    assert [t["seats"] for t in match["board_results"][0]["tables"]] == SEATS

    # ann holds a seat at every table of the board, so no game of the match is closed to its token;
    # what it may not read is another seat's: the view shows its own cards only, and at the table
    # where it is box, the advice between captain and advisor is refused to it
    assert all("ann" in seats for seats in SEATS)
    for table, game_id in enumerate(games):
        mine = view(client, game_id, ann)
        assert mine["viewer"] == SEATS[table].index("ann") and mine["all_hands"] is None
        assert [p["name"] for p in mine["players"]] == SEATS[table]
        sealed = client.get(f"/games/{game_id}")
        assert sealed.status_code == 403 and sealed.get_json()["code"] == "match_game_sealed"
    assert view(client, games[0], ann)["hand_owner"] == BOX
    refused = client.get(f"/games/{games[0]}/advice", token=ann)
    assert refused.status_code == 403, refused.get_data(as_text=True)
    assert refused.get_json()["code"] == "forbidden"
    assert client.get(f"/games/{games[1]}/advice", token=ann).status_code == 200  # ann is advisor there

    workers.start()
    listed_at: set[tuple[int, int]] = set()
    alpha_moved_at: set[int] = set()
    status = "running"
    for _ in range(ROUNDS):
        listed = turns(client, match_id, ann)
        status = listed["status"]
        if status == "over":
            break
        moved = False
        for turn in listed["turns"]:
            listed_at.add((turn["table"], turn["seat"]))
            seat_view = view(client, turn["game_id"], ann)
            # ann's seat is to act there, so nobody else can have moved since the listing
            assert seat_view["version"] == turn["version"] and seat_view["phase"] == turn["phase"]
            assert seat_view["to_act"] == [turn["seat"]] and seat_view["legal_moves"]
            play(client, turn["game_id"], ann, seat_view)
            moved = True
        for table, game_id in enumerate(games):
            bot_view = view(client, game_id, alpha)
            assert bot_view["viewer"] == SEATS[table].index("alpha")
            if bot_view["status"] == "playing" and bot_view["viewer"] in bot_view["to_act"]:
                play(client, game_id, alpha, bot_view)
                alpha_moved_at.add(table)
                moved = True
        if not moved:
            time.sleep(0.05)  # basic's turn: its worker plays it
    else:
        logs = "\n".join(w.log_text() for w in workers.workers)
        raise AssertionError(f"the match did not end within {ROUNDS} rounds:\n{logs}")

    # /turns ends empty, with the match over
    assert turns(client, match_id, ann) == {"match_id": match_id, "participant": "ann", "status": "over",
                                            "turns": []}
    # ann was told of its turns in its own seats: box at table 0, captain at table 2, never as advisor
    assert listed_at == {(0, BOX), (2, CAPTAIN)}
    # alpha acted as captain at table 0 (the captain acts first: it is offered the upcard), never as
    # advisor at table 2 (at table 1 it is box, whose turn a captain's knock on its first turn can forestall)
    assert 0 in alpha_moved_at and 2 not in alpha_moved_at

    match = client.get(f"/matches/{match_id}").get_json()
    assert match["status"] == "over" and match["boards_done"] == 1 and match["games_done"] == 3
    tables = match["board_results"][0]["tables"]
    assert [t["seats"] for t in tables] == SEATS
    # each participant sat once in each seat over the board's tables
    for name in PARTICIPANTS:
        assert sorted(t["seats"].index(name) for t in tables) == [BOX, CAPTAIN, ADVISOR]

    for table, entry in enumerate(tables):
        assert entry["game_id"] == games[table]
        game = client.get(f"/games/{entry['game_id']}")  # the match is over: no longer sealed
        assert game.status_code == 200, game.get_data(as_text=True)
        game = game.get_json()
        assert game["status"] == "over" and [p["name"] for p in game["players"]] == SEATS[table]
        # the points recorded are those of the game's own hand results, seat by seat
        points = [0, 0, 0]
        for result in game["hand_results"]:
            if result.get("winner") is not None:
                points[result["winner"]] += result["points"]
        assert entry["points"] == points
        # the game ended with its first hand that scored, won by box or captain: the advisor never scores
        assert [r.get("winner") is not None for r in game["hand_results"]][-1] is True
        assert sum(r.get("winner") is not None for r in game["hand_results"]) == 1
        assert points[ADVISOR] == 0 and (points[BOX] > 0) != (points[CAPTAIN] > 0)

    # board scores: per table, a seat's points minus the mean of the two other seats' points, summed
    expected = {name: 0.0 for name in PARTICIPANTS}
    for entry in tables:
        p = entry["points"]
        for seat, name in enumerate(entry["seats"]):
            others = [p[s] for s in range(3) if s != seat]
            expected[name] += p[seat] - (others[0] + others[1]) / 2
    assert sum(expected.values()) == pytest.approx(0)
    assert match["board_results"][0]["scores"] == {name: pytest.approx(v) for name, v in expected.items()}
    standings = {s["name"]: s for s in match["standings"]}
    for name in PARTICIPANTS:
        assert standings[name]["boards"] == 1
        assert standings[name]["total"] == pytest.approx(expected[name])
        assert standings[name]["mean_per_board"] == pytest.approx(expected[name])
    assert standings["ann"]["kind"] == "person"

    audit = client.get(f"/matches/{match_id}/audit")
    assert audit.status_code == 200 and audit.get_json()["ok"] is True
    # unrated: a person has no rating, and neither alpha's nor basic's moves
    assert client.get("/ratings?variant=three-hand").get_json()["ratings"] == []
    profile = client.get("/bots/alpha").get_json()
    assert profile["matches"] == 1 and profile["ratings"] == {}
