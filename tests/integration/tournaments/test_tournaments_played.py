"""Tournaments played to the end on a real Redis with real ``ginbox worker`` processes.

A round-robin of 4 and a Swiss of 8 over 3 rounds each lose a worker (SIGKILL) midway, and another
starts (the Swiss's API process is replaced by a new one on the same Redis then too): every pairing is played once (one match, every board once), the standings are what the pure
standings function gives from the pairings' own matches, and the ratings moved as Glicko-2 says,
one rating period per round.
"""

from __future__ import annotations

import time

import pytest

from service.rules import tournament as T
from service.rules.ratings import Rating, rate_period
from service.app import create_app
from service.composition import make_bot_scheduler
from support.apiclient import ValidatingClient
from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)

DEADLINE_S = 240


def wait_over(clients: list, tournament_id: str, on_progress) -> dict:
    """Follow the tournament to its end through the last client of ``clients`` (a restart appends one)."""
    end = time.monotonic() + DEADLINE_S
    while True:
        view = clients[-1].get(f"/tournaments/{tournament_id}").get_json()
        on_progress(view)
        if view["status"] == "over":
            return view
        assert time.monotonic() < end, f"tournament stuck at {view['rounds_done']} of {view['rounds']} rounds"
        time.sleep(0.05)  # a round of quick bots can take well under a second


def check_played_once(app, client, view: dict) -> list[dict]:
    """Each pairing's match over, every board recorded once; the pairings' results from their matches."""
    arena = app.extensions["ginbox"].arena
    names = [e["name"] for e in view["entries"]]
    results, seen = [], set()
    for rnd in view["schedule"]:
        for pairing in rnd["pairings"]:
            match = client.get(pairing["match_url"]).get_json()
            assert match["status"] == "over"
            assert [p["name"] for p in match["participants"]] == pairing["entries"]
            records = [r.event for r in arena.matches.load(pairing["match_id"])]
            played = [(e["data"]["board"], e["data"]["table"]) for e in records if e["type"] == "board_played"]
            assert sorted(played) == [(b, t) for b in range(view["boards"]) for t in range(2)]  # none twice
            assert sum(e["type"] == "match_created" for e in records) == 1
            seen.add(frozenset(pairing["entries"]))
            totals = {s["name"]: s["total"] for s in match["standings"]}
            results.append({"round": rnd["round"], "a": names.index(pairing["entries"][0]),
                            "b": names.index(pairing["entries"][1]),
                            "totals": [totals[pairing["entries"][0]], totals[pairing["entries"][1]]],
                            "boards": match["board_results"], "entries": pairing["entries"]})
            # the pairing shows its match's totals and games
            assert pairing["totals"] == results[-1]["totals"]
            assert sorted(pairing["games"]) == sorted(t["game_id"] for b in match["board_results"] for t in b["tables"])
    assert len(seen) == len(results)  # no two entries met twice
    # the tournament's log holds each pairing once
    log = [r.event for r in arena.tournament_log.load(view["tournament_id"])]
    keys = [(e["data"]["round"], e["data"]["pairing"]) for e in log if e["type"] == T.PAIRING_PLAYED]
    assert len(keys) == len(set(keys)) == len(results)
    return results


def expected_ratings(view: dict, results: list[dict], rating_of: dict) -> dict[str, Rating]:
    """Glicko-2, one period per round from new ratings: each board a game won by the higher board score."""
    ratings: dict[str, Rating] = {}
    for round_no in range(1, view["rounds"] + 1):
        games = []
        for r in results:
            if r["round"] != round_no:
                continue
            a, b = r["entries"]
            if rating_of[a] == rating_of[b]:
                continue  # a policy against itself moves no rating
            for board in r["boards"]:
                diff = board["scores"][a] - board["scores"][b]
                games.append((rating_of[a], rating_of[b], 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0))
        ratings = {**ratings, **rate_period(ratings, games)}
    return ratings


def play_with_a_worker_killed(client, workers, body: dict, kill_after_rounds: int, restarted=None) -> dict:
    """Start the tournament, kill a worker (SIGKILL) once ``kill_after_rounds`` rounds are over and start
    another; ``restarted``: the client of a new API process on the same Redis, that follows it from then on."""
    created = client.post("/tournaments", json=body)
    assert created.status_code == 201, created.get_data(as_text=True)
    view = created.get_json()
    assert view["status"] == "running" and view["schedule"][0]["round"] == 1
    doomed = workers.start()
    workers.start()
    killed, clients = [], [client]

    def kill_midway(v):
        if not killed and v["rounds_done"] >= kill_after_rounds:
            workers.kill9(doomed)
            workers.start()
            killed.append(v["rounds_done"])
            if restarted is not None:
                clients.append(restarted())  # the first API process is left: a new one follows from here

    final = wait_over(clients, view["tournament_id"], kill_midway)
    assert killed and killed[0] < final["rounds"], "the worker was not killed before the tournament ended"
    return final


def check_standings_and_ratings(app, client, final: dict) -> None:
    results = check_played_once(app, client, final)
    names = [e["name"] for e in final["entries"]]
    byes = [names.index(r["bye"]) for r in final["schedule"] if r["bye"] is not None]
    assert final["standings"] == T.standings(final["system"], names, results, byes)
    rating_of = {e["name"]: e["name"].split("-")[0] for e in final["entries"]}
    expected = expected_ratings(final, results, rating_of)
    board = {r["name"]: r for r in client.get("/ratings?variant=gin-rami").get_json()["ratings"]}
    assert set(board) == set(expected)
    for name, rating in expected.items():
        assert board[name]["rating"] == pytest.approx(rating.rating, abs=0.01)
        assert board[name]["deviation"] == pytest.approx(rating.deviation, abs=0.01)


@pytest.mark.slow
def test_a_round_robin_of_four_plays_every_pairing_once_through_a_worker_killed(app, client, workers):
    # quick policies (advanced thinks, random against random rarely knocks): games of a second or less
    # four boards a pairing: a round lasts long enough for the kill to fall between two rounds
    body = {"system": "round_robin", "entries": ["random", "simple", "basic", "simple"], "boards": 4}
    final = play_with_a_worker_killed(client, workers, body, kill_after_rounds=1)
    assert final["rounds"] == final["rounds_done"] == 3
    assert final["tie_breaks"] == ["sonneborn_berger", "head_to_head", "board_difference"]
    pairs = sorted(tuple(sorted(p["entries"])) for r in final["schedule"] for p in r["pairings"])
    names = [e["name"] for e in final["entries"]]
    assert names == ["random", "simple", "basic", "simple-2"]  # a policy entered twice is told apart
    assert pairs == sorted(tuple(sorted((a, b))) for i, a in enumerate(names) for b in names[i + 1:])
    check_standings_and_ratings(app, client, final)


@pytest.mark.slow
def test_a_swiss_of_eight_over_three_rounds_plays_every_pairing_once_through_a_worker_killed(app, client, workers,
                                                                                           settings):
    body = {"system": "swiss", "entries": ["random", "simple", "basic", "simple", "basic", "simple", "basic", "simple"],
            "rounds": 3, "boards": 2}
    # the API process is restarted too: a new app on the same Redis follows the tournament after the kill
    final = play_with_a_worker_killed(
        client, workers, body, kill_after_rounds=1,
        restarted=lambda: ValidatingClient(create_app(settings, bot_scheduler=make_bot_scheduler(settings))))
    assert final["rounds"] == final["rounds_done"] == 3
    assert [len(r["pairings"]) for r in final["schedule"]] == [4, 4, 4]
    assert all(r["bye"] is None for r in final["schedule"])
    assert final["tie_breaks"] == ["buchholz", "sonneborn_berger", "head_to_head", "board_difference"]
    # each round's pairings are what the Swiss rule gives from the standings before it
    names = [e["name"] for e in final["entries"]]
    results = check_played_once(app, client, final)
    met: set = set()
    for rnd in final["schedule"]:
        before = [r for r in results if r["round"] < rnd["round"]]
        points = [0.0] * 8
        for row in T.standings(T.SWISS, names, before):
            points[names.index(row["name"])] = row["points"]
        pairs, _ = T.swiss_pairings(8, points, met, set())
        assert [[names[a], names[b]] for a, b in pairs] == [p["entries"] for p in rnd["pairings"]]
        met |= {frozenset(p) for p in pairs}
    check_standings_and_ratings(app, client, final)
