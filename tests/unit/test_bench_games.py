"""The bench's chaining of hands into whole games to a target score (tests/bench/bench_bots.py)."""

import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location(
    "bench_bots", Path(__file__).resolve().parents[1] / "bench" / "bench_bots.py")
bench_bots = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_bots)


def test_a_game_ends_when_either_side_reaches_the_target_and_the_next_starts_from_zero():
    # 60, then 30 to the other side, then 50: 110 against 30, a win on the third hand; the next
    # game starts at 0: -70, -40 gives the other side 110, a loss.
    assert bench_bots.games_to(100, [[60, -30, 50, -70, -40]]) == (2, 1)


def test_drawn_hands_score_nothing_and_an_unfinished_game_is_not_counted():
    assert bench_bots.games_to(100, [[0, 99, 0]]) == (0, 0)
    # exactly the target ends the game
    assert bench_bots.games_to(100, [[99, 1, 40]]) == (1, 1)


def test_each_seating_is_its_own_run_of_games():
    # 60 + 60 in one seating and -60 - 60 in the other: one game each, won and lost, never summed
    assert bench_bots.games_to(100, [[60, 60], [-60, -60]]) == (2, 1)
