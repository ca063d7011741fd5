"""Duplicate matches on a real Redis with real ``ginbox worker`` processes.

The smallest request of the bot guide plays to the end; each board is recorded once, from the
game that was played (its final log), and the audit checks every board against the seed the
match revealed; a worker killed mid-match loses no board and plays none twice; bad requests
create nothing.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from service.rules import duplicate as D
from service.rules.ratings import rate_period
from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)

REPO = Path(__file__).resolve().parents[3]
MATCH_DEADLINE_S = 400







def wait_over(client, match_id: str, deadline_s: float = MATCH_DEADLINE_S, on_progress=None) -> dict:
    end = time.monotonic() + deadline_s
    while True:
        match = client.get(f"/matches/{match_id}").get_json()
        if on_progress is not None:
            on_progress(match)
        if match["status"] == "over":
            return match
        assert time.monotonic() < end, f"match {match_id} stuck at {match['games_done']} of {match['games']} games"
        time.sleep(0.3)


def check_recorded_from_the_games(app, client, match_id: str) -> D.MatchState:
    """Every board recorded once, and each record is what its game's own log says."""
    arena = app.extensions["ginbox"].arena
    records = [r.event for r in arena.matches.load(match_id)]
    played = [e["data"] for e in records if e["type"] == D.BOARD_PLAYED]
    state = D.replay(records)
    keys = [(p["board"], p["table"]) for p in played]
    assert sorted(keys) == [(b, t) for b in range(state.boards) for t in range(state.tables)]  # none lost, none twice
    for p in played:
        game = client.get(f"/games/{p['game_id']}").get_json()
        assert game["status"] == "over"
        # the points recorded are the hand points of the game's own results, seat by seat
        points = [0] * len(game["players"])
        for result in game["hand_results"]:
            if result.get("winner") is not None:
                points[result["winner"]] += result["points"]
        assert p["points"] == points
        assert p["game_id"] == D.game_id_for(match_id, p["board"], p["table"])
    return state


@pytest.mark.slow
def test_the_smallest_match_request_plays_ten_boards_to_the_end_and_passes_its_audit(app, client, workers):
    created = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "random"], "boards": 10})
    assert created.status_code == 201, created.get_data(as_text=True)
    match = created.get_json()
    match_id = match["match_id"]
    assert match["status"] == "running" and match["seed"] is None
    commitments = [b["commitment"] for b in match["board_results"]]
    assert len(set(commitments)) == 10
    early = client.get(f"/matches/{match_id}/audit")
    assert early.status_code == 409 and early.get_json()["code"] == "match_not_over"
    workers.start()
    final = wait_over(client, match_id)
    assert final["boards_done"] == 10 and final["games_done"] == 20
    assert [b["commitment"] for b in final["board_results"]] == commitments  # fixed before play
    names = [s["name"] for s in final["standings"]]
    assert names == ["basic", "random"]
    for s in final["standings"]:
        assert s["boards"] == 10 and len(s["ci95"]) == 2
        assert s["ci95"][0] <= s["mean_per_board"] <= s["ci95"][1]
        assert s["mean_per_board"] == pytest.approx(s["total"] / 10)
    # duplicate: each board's two scores cancel out, and they are what its two tables' points say
    for board in final["board_results"]:
        t0, t1 = board["tables"]
        assert t0["seats"] == ["basic", "random"] and t1["seats"] == ["random", "basic"]
        basic = (t0["points"][0] - t0["points"][1]) + (t1["points"][1] - t1["points"][0])
        assert board["scores"] == {"basic": pytest.approx(basic), "random": pytest.approx(-basic)}
    state = check_recorded_from_the_games(app, client, match_id)
    # each game of policies alone was played whole by one job, not a job per turn
    from rq.registry import FinishedJobRegistry

    from service.bots import bot_queue
    from service.composition import queue_connection

    ginbox_settings = app.extensions["ginbox"].settings
    connection = queue_connection(ginbox_settings)
    board_queue = bot_queue(connection, ginbox_settings.board_queue)
    finished = FinishedJobRegistry(queue=board_queue).get_job_ids()
    turn_jobs = FinishedJobRegistry(queue=bot_queue(connection, ginbox_settings.queue_name)).get_job_ids()
    # on the board queue, apart from the turn queue of people's games; a job whose game ended plays
    # on into the game that end started (a chain), and its result says how many more it played
    from rq.job import Job

    boards = Job.fetch_many([j for j in finished if j.startswith("board-")], connection=connection,
                            serializer=board_queue.serializer)
    played = sum(1 + int(re.search(r"then (\d+) more game", job.return_value() or "").group(1))
                 if "more game" in (job.return_value() or "") else 1 for job in boards if job is not None)
    assert played >= 20, [job.return_value() for job in boards if job is not None]
    assert not [j for j in finished if not j.startswith("board-")]
    assert not [j for j in turn_jobs if j.startswith("board-")]
    # no turn job at all: the sweeper enqueues a board job again on the board queue, never a turn
    assert not [j for j in turn_jobs if j.startswith("bot-")]
    # the live stream of a match that is over sends its last progress and ends
    streamed = client.get(f"/matches/{match_id}/stream").get_data(as_text=True)
    assert "event: progress" in streamed and '"status":"over"' in streamed and '"boards_done":10' in streamed
    audit = client.get(f"/matches/{match_id}/audit").get_json()
    assert audit["ok"] and len(audit["checks"]) == 11
    assert audit["seed"] == final["seed"]
    # the two tables of a board were dealt from one seed: the board's commitment is each game's own
    for board in final["board_results"]:
        for table in board["tables"]:
            assert client.get(f"/games/{table['game_id']}").get_json()["commitment"] == board["commitment"]
    # the match was rated: one game per board between the two policies
    board = client.get("/ratings?variant=gin-rami").get_json()["ratings"]
    assert {r["name"]: r["games"] for r in board} == {"basic": 10, "random": 10}
    # one Glicko-2 rating period (service.rules.ratings, checked against Glickman's worked example)
    # from new ratings, each board a game won by the higher board score
    expected = rate_period({}, D.pairings(state))
    for row in board:
        assert row["rating"] == pytest.approx(expected[row["name"]].rating, abs=0.01)
        assert row["deviation"] == pytest.approx(expected[row["name"]].deviation, abs=0.01)
    assert client.get("/ratings?variant=three-hand").get_json()["ratings"] == []


@pytest.mark.slow
def test_a_three_hand_match_rotates_the_three_participants_over_every_role(app, client, workers):
    match_id = client.post("/matches", json={"variant": "three-hand", "participants": ["basic", "random", "basic"],
                                             "boards": 2}).get_json()["match_id"]
    workers.start()
    final = wait_over(client, match_id)
    assert [s["name"] for s in final["standings"]] == ["basic", "random", "basic-2"]
    for board in final["board_results"]:
        assert [t["seats"] for t in board["tables"]] == [["basic", "random", "basic-2"],
                                                         ["random", "basic-2", "basic"],
                                                         ["basic-2", "basic", "random"]]
        assert sum(board["scores"].values()) == pytest.approx(0)
    check_recorded_from_the_games(app, client, match_id)
    assert client.get(f"/matches/{match_id}/audit").get_json()["ok"]


@pytest.mark.slow
def test_a_worker_killed_mid_match_loses_no_board_and_plays_none_twice(app, client, workers):
    # experts, who think up to their budget a move: a board takes them a second or so, so the test
    # sees the match in play (basic and random play twelve boards within one of its looks)
    match_id = client.post("/matches", json={"variant": "gin-rami", "participants": ["expert", "expert"],
                                             "boards": 12}).get_json()["match_id"]
    doomed = workers.start()
    workers.start()
    killed = []

    def kill_midway(match):
        if not killed and match["games_done"] >= 4:
            workers.kill9(doomed)
            killed.append(match["games_done"])

    final = wait_over(client, match_id, on_progress=kill_midway)
    assert killed and killed[0] < final["games"], "the worker was not killed before the match ended"
    check_recorded_from_the_games(app, client, match_id)
    assert client.get(f"/matches/{match_id}/audit").get_json()["ok"]
    # every game's log is whole: versions contiguous from 1
    for board in final["board_results"]:
        for table in board["tables"]:
            events = client.get(f"/games/{table['game_id']}/events?limit=1000").get_json()["events"]
            assert [e["version"] for e in events] == list(range(1, len(events) + 1))


def test_bad_match_requests_are_refused_with_stable_codes_and_create_nothing(app, client):
    token = client.post("/bots", json={"name": "alpha"}).get_json()["token"]
    cases = [
        ({"variant": "gin-rami", "participants": ["basic", "nobody"], "boards": 2}, 422, "unknown_participant"),
        ({"variant": "gin-rami", "participants": ["alpha", "alpha"], "boards": 2}, 422, "duplicate_participant"),
        ({"variant": "gin-rami", "participants": ["basic", "random", "expert"], "boards": 2}, 422, "invalid_match"),
        ({"variant": "three-hand", "participants": ["basic", "random"], "boards": 2}, 422, "invalid_match"),
        ({"variant": "gin-rami", "participants": ["basic", "random"], "boards": 0}, 400, "invalid_body"),
        ({"variant": "gin-rami", "participants": ["basic", "random"], "boards": 1_000_000}, 400, "invalid_body"),
        ({"variant": "gin-rami", "participants": ["basic", "random"], "boards": 2, "move_time_s": 0}, 400,
         "invalid_body"),
        ({"variant": "gin-rami", "participants": ["basic", "random"], "boards": 2,
          "options": {"target_score": 0}}, 400, "invalid_body"),
    ]
    for body, status, code in cases:
        resp = client.post("/matches", json=body)
        assert (resp.status_code, resp.get_json()["code"]) == (status, code), body
    assert client.get("/matches").get_json()["matches"] == []
    assert client.get("/bots/alpha").get_json()["matches"] == 0
    assert "event:" not in client.get("/bots/me/stream?once=1", token=token).get_data(as_text=True)
    assert client.get("/matches/AAAAAAAAAAAAAAAA").get_json()["code"] == "match_not_found"
    assert client.get("/matches/nope").status_code == 404
