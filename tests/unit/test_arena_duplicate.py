"""Duplicate scoring, seating and the match's log (service/rules/duplicate.py)."""

from __future__ import annotations

import pytest

from service.rules import duplicate as D
from service.rules import fairness

PARTS = [{"name": "basic", "kind": "policy"}, {"name": "random", "kind": "policy"}]


def _match(variant="gin-rami", parts=PARTS, boards=2, window=4):
    return D.evolve(None, D.create(variant, {}, parts, boards, None, b"s" * 32, window))


def test_gin_rami_swaps_the_seats_at_the_second_table_and_three_hand_rotates_every_role():
    assert [D.seating("gin-rami", t) for t in (0, 1)] == [[0, 1], [1, 0]]
    assert [D.seating("three-hand", t) for t in (0, 1, 2)] == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]


def test_a_board_score_is_what_a_participant_won_over_what_the_other_won_with_the_same_cards():
    state = _match(boards=1)
    state = D.evolve(state, D.decide_start(state))
    # table 0: basic in seat 0 wins 25; table 1: random in seat 0 (same cards) wins only 10
    state = D.evolve(state, D.decide_played(state, 0, 0, "g0", [25, 0]))
    state = D.evolve(state, D.decide_played(state, 0, 1, "g1", [10, 0]))
    assert D.board_scores(state) == {0: [25 - 10, 10 - 25]}


def test_three_hand_board_scores_subtract_the_mean_of_the_other_two_and_sum_to_zero():
    parts = PARTS + [{"name": "expert", "kind": "policy"}]
    state = _match("three-hand", parts, boards=1)
    state = D.evolve(state, D.decide_start(state))
    # the box (seat 0) wins 30 at table 0, the captain (seat 1) 12 at table 1, nobody scores 0 at table 2
    for table, points in enumerate([[30, 0, 0], [0, 12, 0], [0, 0, 0]]):
        state = D.evolve(state, D.decide_played(state, 0, table, f"g{table}", points))
    # t0 seats basic, random, expert: 30, -15, -15; t1 seats random, expert, basic: -6, +12, -6
    assert D.board_scores(state)[0] == pytest.approx([30 - 6, -15 - 6, -15 + 12])
    assert sum(D.board_scores(state)[0]) == pytest.approx(0)


def test_a_board_with_a_table_still_playing_is_not_scored_yet():
    state = _match(boards=1)
    state = D.evolve(state, D.decide_start(state))
    state = D.evolve(state, D.decide_played(state, 0, 0, "g0", [25, 0]))
    assert D.board_scores(state) == {}
    assert D.standings(state)[0]["mean_per_board"] is None


def test_a_game_is_recorded_once_and_only_once_started():
    state = _match(boards=3, window=2)
    assert D.decide_played(state, 0, 0, "g", [1, 0]) is None  # not started
    state = D.evolve(state, D.decide_start(state))
    assert state.started == 2 and D.decide_start(state) is None  # the window is full
    state = D.evolve(state, D.decide_played(state, 0, 0, "g", [1, 0]))
    assert D.decide_played(state, 0, 0, "g", [1, 0]) is None
    assert D.decide_start(state)["data"]["upto"] == 3


def test_the_95_interval_is_students_t_on_the_board_scores():
    total, mean, ci = D.summarize([10.0, 20.0, 30.0])
    # sd 10, n 3, t(2) = 4.303: 20 +- 4.303 * 10 / sqrt(3) = 20 +- 24.843
    assert (total, mean) == (60.0, 20.0)
    assert ci == pytest.approx([20 - 24.843, 20 + 24.843], abs=0.001)
    assert D.summarize([5.0])[2] is None


def test_the_audit_passes_for_games_dealt_from_the_committed_board_seeds_and_fails_otherwise():
    seed = b"s" * 32
    state = _match(boards=2)
    state = D.evolve(state, D.decide_start(state))
    for board in range(2):
        for table in range(2):
            state = D.evolve(state, D.decide_played(state, board, table, "g", [1, 0]))
    state = D.evolve(state, D.decide_finish(state, seed))
    good = {D.game_index(b, t, 2): fairness.commitment(D.board_seed(seed, b)) for b in range(2) for t in range(2)}
    checks = D.verify(state, good)
    assert all(c["ok"] for c in checks) and len(checks) == 3
    bad = {**good, 3: fairness.commitment(b"other")}
    assert [c["ok"] for c in D.verify(state, bad)] == [True, True, False]


def test_board_seeds_differ_per_board_and_game_ids_are_fixed_by_match_board_and_table():
    assert D.board_seed(b"x", 0) != D.board_seed(b"x", 1)
    assert D.game_id_for("m", 0, 1) == D.game_id_for("m", 0, 1) != D.game_id_for("m", 1, 0)
    assert len(D.game_id_for("m", 0, 1)) == 16


def test_standings_show_points_per_board_and_their_interval_to_two_decimals():
    # basic wins 10, 20 and 22 at table 0 of the three boards, random nothing at table 1: basic's
    # board scores are 10, 20, 22, their mean 52 / 3 = 17.333... The interval's half is t95(2) =
    # 4.303 times the standard deviation over sqrt(3): the deviations -7.333, 2.667, 4.667 square
    # to 53.78, 7.11, 21.78 (82.67 in all), over 2 boards of freedom 41.33, whose root is 6.4291;
    # 6.4291 / 1.7321 = 3.7118, times 4.303 = 15.972: [1.361, 33.305]. random's are the opposites
    state = _match(boards=3, window=6)
    state = D.evolve(state, D.decide_start(state))
    for board, won in enumerate([10, 20, 22]):
        state = D.evolve(state, D.decide_played(state, board, 0, f"g{board}0", [won, 0]))
        state = D.evolve(state, D.decide_played(state, board, 1, f"g{board}1", [0, 0]))
    basic, random_ = D.standings(state)
    assert basic["total"] == 52 and basic["mean_per_board"] == 17.33
    assert basic["ci95"] == [1.36, 33.31]
    assert random_["mean_per_board"] == -17.33 and random_["ci95"] == [-33.31, -1.36]
