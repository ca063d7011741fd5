"""A finished duplicate match audited offline from its document and its games' exports
(service/rules/match_audit.py; FAIRNESS.md "A duplicate match's boards" and "Checking a match").

The matches here are played in this process by the rules engine and the built-in policies, from
the match seed named "counting" in the published vectors; the match's document is written by the
test from the documents alone: each board's commitment from the vectors' ``board_seeds``, a
table's points from its hand results (and a forfeit: the largest bonus plus the forfeiting seat's
least deadwood, worked out with the tests' own card maths), a board's scores (each seat's points
minus the mean of the others', summed over the tables), the standings (total, mean, Student's t
95% interval to 2 decimals). A match so written passes; each change to it, or to the games, fails
with a message that names it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import statistics
from pathlib import Path

import pytest

from service.rules import commands, events, game, views
from service.rules.match_audit import verify_match
from support.cardmath import min_deadwood
from workers.arena import Table
from workers.policies import make_policy

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "service/docs/fairness-vectors.json").read_text())
SEED = next(s["seed"] for s in VECTORS["seeds"] if s["name"] == "counting")
BOARD_SEEDS = {v["board"]: v for v in VECTORS["board_seeds"] if v["match_seed"] == "counting"}
MATCH_ID = "AAAAAAAAAAAAAAAA"
NAMES = ["basic", "random"]
BIG_GIN = 30  # gin-rami's largest bonus by default (RULES.md: gin 20, big gin 30, undercut 10)
T95_ONE_DOF = 12.706  # Student's t, two-sided 95%, one degree of freedom


def game_id(board: int, table: int) -> str:
    """service/docs/BOTS.md: a board's game id is fixed by (match, board, table)."""
    return base64.urlsafe_b64encode(hashlib.sha256(f"{MATCH_ID}/{board}/{table}".encode()).digest()[:12]).decode()


def seats(table: int) -> list[int]:
    """gin-rami: the second table swaps the seats."""
    return [0, 1] if table == 0 else [1, 0]


def play(board: int, table: int, resign_first: bool = False) -> list:
    """The log of (board, table): dealt from the board's seed (the vectors'), seat 1 dealing first, to
    the first hand that scores; or resigned by the first seat to act."""
    spec = game.GameSpec(variant="gin-rami", options={"target_score": 1},
                         players=[{"name": NAMES[i], "bot": NAMES[i], "match": MATCH_ID} for i in seats(table)],
                         seed=bytes.fromhex(BOARD_SEEDS[board]["board_seed"]), first_dealer=1)
    t = Table.start(spec)
    policies = [make_policy(NAMES[i]) for i in seats(table)]
    if resign_first:
        t.play(t.state.to_act[0], commands.RESIGN)
    while t.state.status == "playing":
        seat = t.state.to_act[0]
        rng = random.Random(f"{board}:{table}:{t.state.version}")
        t.play(seat, policies[seat].choose(views.view_state(t.state, seat), rng, t.seen[seat]))
    return t.log


def export(log: list) -> list[str]:
    return [json.dumps({"version": v, "ts": 1_700_000_000_000 + v, **events.encode(e)})
            for v, e in enumerate(log, start=1)]


def table_points(log: list) -> list[int]:
    """A table's points: each hand's winner its points; a resigning seat forfeits the largest bonus plus
    its least deadwood to the other seat (service/docs/BOTS.md: Forfeits)."""
    points = [0, 0]
    for e in log:
        if type(e) is events.HandScored and e.winner is not None:
            points[e.winner] += e.points
    end = log[-1]
    if type(end) is events.GameResigned:
        deck = next(e.deck for e in log if type(e) is events.HandDealt)
        dealer = next(e.dealer for e in log if type(e) is events.HandDealt)
        # FAIRNESS.md step 4: cards 1-20 alternately to the non-dealer and the dealer, non-dealer first
        hand = deck[0:20:2] if end.seat != dealer else deck[1:20:2]
        points[1 - end.seat] += BIG_GIN + min_deadwood(hand)
    return points


def match_doc(points: dict) -> dict:
    """The match's document (GET /matches/{id}) as the documents say it follows from the tables' points."""
    boards = len(points) // 2
    per_board = []
    results = []
    for b in range(boards):
        scores = [0.0, 0.0]
        for t in range(2):
            p = points[b, t]
            for seat, participant in enumerate(seats(t)):
                scores[participant] += p[seat] - p[1 - seat]
        per_board.append(scores)
        results.append({"board": b, "commitment": BOARD_SEEDS[b]["commitment"],
                        "tables": [{"table": t, "game_id": game_id(b, t), "seats": [NAMES[i] for i in seats(t)],
                                    "over": True, "points": points[b, t]} for t in range(2)],
                        "scores": dict(zip(NAMES, scores))})
    standings = []
    for i, name in enumerate(NAMES):
        own = [s[i] for s in per_board]
        total, mean = sum(own), sum(own) / len(own)
        half = T95_ONE_DOF * statistics.stdev(own) / math.sqrt(len(own)) if len(own) == 2 else None
        standings.append({"name": name, "kind": "policy", "total": round(total, 2), "mean_per_board": round(mean, 2),
                          "ci95": None if half is None else [round(mean - half, 2), round(mean + half, 2)],
                          "boards": len(own)})
    return {"match_id": MATCH_ID, "variant": "gin-rami", "status": "over", "options": {}, "move_time_s": None,
            "participants": [{"name": n, "kind": "policy"} for n in NAMES], "boards": boards,
            "boards_done": boards, "games": 2 * boards, "games_done": 2 * boards,
            "commitment": next(s["commitment"] for s in VECTORS["seeds"] if s["name"] == "counting"),
            "seed": SEED, "version": 2 + 2 * boards + 1, "standings": standings, "board_results": results}


@pytest.fixture(scope="module")
def logs() -> dict:
    """Two boards of basic against random; at board 1's table 1 the first seat to act resigns."""
    return {(0, 0): play(0, 0), (0, 1): play(0, 1), (1, 0): play(1, 0), (1, 1): play(1, 1, resign_first=True)}


@pytest.fixture
def match(logs) -> dict:
    return match_doc({k: table_points(v) for k, v in logs.items()})


def exports_of(logs: dict) -> list[tuple[str, list[str]]]:
    return [(f"{game_id(b, t)}.ndjson", export(log)) for (b, t), log in sorted(logs.items())]


def audit(match: dict, exports: list) -> tuple[bool, dict]:
    report = verify_match(json.dumps(match), exports)
    return report["ok"], {c["name"]: c for c in report["checks"]}


def test_a_finished_match_passes_from_its_document_and_its_games_exports(logs, match):
    assert type(logs[1, 1][-1]) is events.GameResigned  # a forfeit is among the tables
    ok, checks = audit(match, exports_of(logs))
    assert ok, [c for c in checks.values() if not c["ok"]]
    assert list(checks) == ["match", "commitment", "games", "game_0_0", "game_0_1", "board_0", "points_0",
                            "game_1_0", "game_1_1", "board_1", "points_1", "standings"]
    assert "forfeit" in checks["points_1"]["detail"]


def test_the_exports_may_come_in_any_order_under_any_names(logs, match):
    shuffled = [(f"x{i}.ndjson", lines) for i, (_, lines) in enumerate(reversed(exports_of(logs)))]
    assert audit(match, shuffled)[0]


def test_a_game_missing_fails_and_names_its_board_and_table(logs, match):
    given = [e for e in exports_of(logs) if not e[0].startswith(game_id(1, 0))]
    ok, checks = audit(match, given)
    assert not ok
    assert f"board 1, table 0 (game {game_id(1, 0)}) has no export" in checks["games"]["detail"]
    assert not checks["points_1"]["ok"] and not checks["standings"]["ok"]
    assert checks["board_0"]["ok"] and checks["points_0"]["ok"]


def test_a_game_given_twice_is_one_extra(logs, match):
    given = exports_of(logs)
    given.append(("copy.ndjson", given[0][1]))
    ok, checks = audit(match, given)
    assert not ok and "copy.ndjson are both board 0, table 0: one is extra" in checks["games"]["detail"]


def test_a_game_of_another_match_in_place_of_one_of_this_match_fails(logs, match):
    # board 0's table 0 played again from another seed: a whole, valid game of no board of this match
    spec = game.GameSpec(variant="gin-rami", options={"target_score": 1}, first_dealer=1, seed=b"\x07" * 32,
                         players=[{"name": n, "bot": n, "match": "BBBBBBBBBBBBBBBB"} for n in NAMES])
    t = Table.start(spec)
    t.play(t.state.to_act[0], commands.RESIGN)
    given = [("other.ndjson", export(t.log)) if name.startswith(game_id(0, 0)) else (name, lines)
             for name, lines in exports_of(logs)]
    ok, checks = audit(match, given)
    assert not ok
    assert "other.ndjson is none of the match's games" in checks["games"]["detail"]
    assert "board 0, table 0" in checks["games"]["detail"]
    assert checks["export_1"]["ok"]  # the stranger is a sound game of its own


def test_an_edited_standing_fails_with_the_figure_the_games_give(logs, match):
    true_total = match["standings"][0]["total"]
    match["standings"][0]["total"] = true_total + 10
    ok, checks = audit(match, exports_of(logs))
    assert not ok and [n for n, c in checks.items() if not c["ok"]] == ["standings"]
    assert f"basic's total is {true_total + 10:g}, the games give {true_total:g}" in checks["standings"]["detail"]


def test_an_edited_table_points_or_board_score_fails_that_board(logs, match):
    match["board_results"][0]["tables"][1]["points"] = [0, 0]
    match["board_results"][1]["scores"]["random"] += 1
    ok, checks = audit(match, exports_of(logs))
    assert not ok
    assert "table 1's points are [0, 0], its game gives" in checks["points_0"]["detail"]
    assert "its scores are" in checks["points_1"]["detail"]


def test_a_table_dealt_other_cards_than_its_board_fails_the_board(logs, match):
    given = exports_of(logs)
    lines = [json.loads(line) for line in given[1][1]]  # board 0, table 1
    dealt = next(ln for ln in lines if ln["type"] == "hand_dealt")
    deck = dealt["data"]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    given[1] = (given[1][0], [json.dumps(ln) for ln in lines])
    ok, checks = audit(match, given)
    assert not ok
    assert "table 1's deck of hand 1 is not the one the board's seed deals" in checks["board_0"]["detail"]
    assert "hand 1 was dealt other cards at table 1 than at table 0" in checks["board_0"]["detail"]
    assert not checks["game_0_1"]["ok"]  # its own audit fails too


def test_an_edited_board_commitment_or_match_commitment_fails(logs, match):
    match["board_results"][1]["commitment"] = BOARD_SEEDS[0]["commitment"]
    match["commitment"] = "0" * 64
    ok, checks = audit(match, exports_of(logs))
    assert not ok and not checks["commitment"]["ok"]
    assert "not to the commitment published for it" in checks["board_1"]["detail"]


def test_a_match_not_over_or_not_a_match_is_one_failed_check(logs, match):
    running = dict(match, status="running", seed=None)
    report = verify_match(json.dumps(running), exports_of(logs))
    assert not report["ok"] and [c["name"] for c in report["checks"]] == ["match"]
    assert "not over" in report["checks"][0]["detail"]
    report = verify_match("[1, 2", exports_of(logs))
    assert not report["ok"] and "not JSON" in report["checks"][0]["detail"]


THREE = ["basic", "random", "basic-2"]
GIN_BONUS_THREE_HAND = 25  # three-hand's largest bonus by default (RULES.md: gin 25, undercut 10)


def test_a_three_hand_match_with_a_table_abandoned_on_a_seats_move_passes_and_scores_its_forfeit():
    """Three tables, the participants rotated over box, captain and advisor (seat s of table t: participant
    (s + t) mod 3); table 1 is abandoned at once, the seat awaited forfeiting the largest bonus plus its
    least deadwood to each other seat; a seat's table score is its points minus the mean of the others'."""
    seed = bytes.fromhex(BOARD_SEEDS[0]["board_seed"])
    logs, points = [], []
    for t in range(3):
        seating = [(s + t) % 3 for s in range(3)]
        spec = game.GameSpec(variant="three-hand", options={"target_score": 1}, seed=seed,
                             roles={"box": 0, "captain": 1, "advisor": 2},
                             players=[{"name": THREE[i], "bot": THREE[i].split("-")[0], "match": MATCH_ID}
                                      for i in seating])
        table = Table.start(spec)
        policies = [make_policy(THREE[i].split("-")[0]) for i in seating]
        pts = [0, 0, 0]
        if t == 1:
            awaited = table.state.to_act[0]
            dealt = next(e for e in table.log if type(e) is events.HandDealt)
            # FAIRNESS.md step 4: cards 1-20 alternately to the non-dealer and the dealer
            hand = dealt.deck[0:20:2] if awaited == dealt.non_dealer else dealt.deck[1:20:2]
            table.play(None, commands.AbandonGame(600))
            for other in range(3):
                if other != awaited:
                    pts[other] = GIN_BONUS_THREE_HAND + min_deadwood(hand)
        while table.state.status == "playing":
            seat = table.state.to_act[0]
            rng = random.Random(f"three:{t}:{table.state.version}")
            table.play(seat, policies[seat].choose(views.view_state(table.state, seat), rng, table.seen[seat]))
        for e in table.log:
            if type(e) is events.HandScored and e.winner is not None:
                pts[e.winner] += e.points
        logs.append(table.log)
        points.append(pts)
    scores = [0.0, 0.0, 0.0]
    for t, pts in enumerate(points):
        for seat in range(3):
            scores[(seat + t) % 3] += pts[seat] - (sum(pts) - pts[seat]) / 2
    match = {"match_id": MATCH_ID, "variant": "three-hand", "status": "over", "options": {}, "move_time_s": None,
             "participants": [{"name": n, "kind": "policy"} for n in THREE], "boards": 1, "boards_done": 1,
             "games": 3, "games_done": 3, "seed": SEED,
             "commitment": next(s["commitment"] for s in VECTORS["seeds"] if s["name"] == "counting"),
             "board_results": [{"board": 0, "commitment": BOARD_SEEDS[0]["commitment"], "scores": dict(zip(THREE, scores)),
                                "tables": [{"table": t, "game_id": game_id(0, t), "over": True, "points": points[t],
                                            "seats": [THREE[(s + t) % 3] for s in range(3)]} for t in range(3)]}],
             "standings": [{"name": n, "kind": "policy", "total": round(s, 2), "mean_per_board": round(s, 2),
                            "ci95": None, "boards": 1} for n, s in zip(THREE, scores)]}
    exports = [(f"t{t}.ndjson", export(log)) for t, log in enumerate(logs)]
    ok, checks = audit(match, exports)
    assert ok, [c for c in checks.values() if not c["ok"]]
    assert "forfeit" in checks["points_0"]["detail"]
    # the same exports against a seating changed in the document: the tables are no longer where it says
    match["board_results"][0]["tables"][2]["seats"] = THREE
    ok, checks = audit(match, exports)
    assert not ok and "table 2's seats are" in checks["points_0"]["detail"]
