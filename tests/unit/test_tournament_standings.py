"""Tournament pairings and standings against tables worked out by hand (service.rules.tournament)."""

from __future__ import annotations

import pytest

from service.rules import tournament as T
from service.rules.errors import RulesError


def _r(a, b, total):
    """A pairing of entries a and b whose match total for a is ``total`` (b's is its negative)."""
    return {"a": a, "b": b, "totals": [total, -total]}


def test_round_robin_of_four_meets_each_pair_once_in_three_rounds():
    # the circle method: 0 stays, 1 2 3 turn one place a round
    assert T.round_robin_pairings(4, 0) == ([(0, 3), (1, 2)], None)
    assert T.round_robin_pairings(4, 1) == ([(0, 2), (1, 3)], None)
    assert T.round_robin_pairings(4, 2) == ([(0, 1), (2, 3)], None)


def test_round_robin_of_three_gives_each_entry_one_bye():
    rounds = [T.round_robin_pairings(3, r) for r in range(T.round_robin_rounds(3))]
    assert sorted(bye for _, bye in rounds) == [0, 1, 2]
    assert sorted(p for pairs, _ in rounds for p in pairs) == [(0, 1), (0, 2), (1, 2)]


def test_round_robin_sonneborn_berger_breaks_a_tie_on_points():
    # A-D: A +10; B-C: draw; A-C: C +5; B-D: B +20; A-B: A +3; C-D: D +4
    # points: A 2 (W D, L C, W B); B 1.5 (D C, W D, L A); C 1.5 (D B, W A, L D); D 1 (L, L, W C)
    # Sonneborn-Berger: B = D's 1 + half of C's 1.5 = 1.75; C = A's 2 + half of B's 1.5 = 2.75
    results = [_r(0, 3, 10), _r(1, 2, 0), _r(0, 2, -5), _r(1, 3, 20), _r(0, 1, 3), _r(2, 3, -4)]
    rows = T.standings(T.ROUND_ROBIN, list("ABCD"), results)
    assert [(r["name"], r["points"], r["sonneborn_berger"]) for r in rows] == [
        ("A", 2.0, 2.5), ("C", 1.5, 2.75), ("B", 1.5, 1.75), ("D", 1.0, 1.5)]
    # A: beat D (1) and B (1.5) = 2.5; D: beat C (1.5) = 1.5
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert [(r["wins"], r["draws"], r["losses"]) for r in rows] == [(2, 0, 1), (1, 1, 1), (1, 1, 1), (1, 0, 2)]


def test_round_robin_head_to_head_comes_before_board_difference():
    # A-D: A +2; B-C: B +1; A-C: draw; B-D: draw; A-B: A +3; C-D: C +9
    # points: A 2.5, B 1.5 (W C, D D, L A), C 1.5 (L B, D A, W D), D 0.5
    # Sonneborn-Berger: B = C's 1.5 + half of D's 0.5 = 1.75; C = D's 0.5 + half of A's 2.5 = 1.75
    # head to head: B beat C, so B is ahead, though C's board difference (-1 + 0 + 9 = 8) beats B's (1 + 0 - 3 = -2)
    results = [_r(0, 3, 2), _r(1, 2, 1), _r(0, 2, 0), _r(1, 3, 0), _r(0, 1, 3), _r(2, 3, 9)]
    rows = T.standings(T.ROUND_ROBIN, list("ABCD"), results)
    assert [r["name"] for r in rows] == ["A", "B", "C", "D"]
    b, c = rows[1], rows[2]
    assert (b["sonneborn_berger"], c["sonneborn_berger"]) == (1.75, 1.75)
    assert (b["head_to_head"], c["head_to_head"]) == (1.0, 0.0)
    assert (b["board_difference"], c["board_difference"]) == (-2.0, 8.0)


def test_round_robin_board_difference_breaks_a_cycle():
    # A beats B, B beats C, C beats A, and each beats D: 2 points each, SB 2 each, head to head 1 each
    # board difference: A = 6 - 4 + 1 = 3; B = -6 + 2 + 10 = 6; C = -2 + 4 + 3 = 5; D = -14
    results = [_r(0, 1, 6), _r(1, 2, 2), _r(0, 2, -4), _r(0, 3, 1), _r(1, 3, 10), _r(2, 3, 3)]
    rows = T.standings(T.ROUND_ROBIN, list("ABCD"), results)
    assert [(r["name"], r["board_difference"]) for r in rows] == [("B", 6.0), ("C", 5.0), ("A", 3.0), ("D", -14.0)]
    assert {r["head_to_head"] for r in rows[:3]} == {1.0}


# The Swiss of 8 entries over 3 rounds, by hand.
# Round 1 (all on 0, entry order): 0-1 +5, 2-3 +3, 4-5 +2, 6-7 +4: the first of each pair wins.
# Round 2, ranked 0 2 4 6 (1 point) then 1 3 5 7: 0-2 +1, 4-6 -6, 1-3 -2, 5-7 +3.
# Round 3, ranked 0 6 (2), 2 3 4 5 (1), 1 7 (0): 0-6; 2 met 3, so 2-4; 3-5; 1-7.
# Round 3's results: 0-6 -2, 2-4 draw, 3-5 +7, 1-7 -1.
SWISS_ROUNDS = [
    [_r(0, 1, 5), _r(2, 3, 3), _r(4, 5, 2), _r(6, 7, 4)],
    [_r(0, 2, 1), _r(4, 6, -6), _r(1, 3, -2), _r(5, 7, 3)],
    [_r(0, 6, -2), _r(2, 4, 0), _r(3, 5, 7), _r(1, 7, -1)],
]


def _points_after(rounds):
    rows = T.standings(T.SWISS, [str(i) for i in range(8)], [r for rnd in rounds for r in rnd])
    points = [0.0] * 8
    for row in rows:
        points[int(row["name"])] = row["points"]
    return points


def test_swiss_pairs_by_points_and_avoids_rematches():
    met: set = set()
    assert T.swiss_pairings(8, [0.0] * 8, met, set()) == ([(0, 1), (2, 3), (4, 5), (6, 7)], None)
    met |= {frozenset((r["a"], r["b"])) for r in SWISS_ROUNDS[0]}
    assert T.swiss_pairings(8, _points_after(SWISS_ROUNDS[:1]), met, set()) == ([(0, 2), (4, 6), (1, 3), (5, 7)], None)
    met |= {frozenset((r["a"], r["b"])) for r in SWISS_ROUNDS[1]}
    assert _points_after(SWISS_ROUNDS[:2]) == [2, 0, 1, 1, 1, 1, 2, 0]
    assert T.swiss_pairings(8, _points_after(SWISS_ROUNDS[:2]), met, set()) == ([(0, 6), (2, 4), (3, 5), (1, 7)], None)


def test_swiss_standings_of_eight_after_three_rounds():
    # points: 0 2 (W W L), 1 0, 2 1.5 (W L D), 3 2 (L W W), 4 1.5 (W L D), 5 1 (L W L), 6 3, 7 1 (L L W)
    # Buchholz: 0 = 0 + 1.5 + 3 = 4.5; 3 = 1.5 + 0 + 1 = 2.5; 2 = 2 + 2 + 1.5 = 5.5; 4 = 1 + 3 + 1.5 = 5.5;
    # 5 = 1.5 + 1 + 2 = 4.5; 7 = 3 + 1 + 0 = 4; 1 = 2 + 2 + 1 = 5; 6 = 1 + 1.5 + 2 = 4.5
    # 0 and 3 tie on 2 points: Buchholz 4.5 against 2.5
    # 2 and 4 tie on 1.5 and on Buchholz 5.5: Sonneborn-Berger 2 = 3's 2 + half of 4's 1.5 = 2.75,
    # 4 = 5's 1 + half of 2's 1.5 = 1.75
    # 5 and 7 tie on 1: Buchholz 4.5 against 4
    rows = T.standings(T.SWISS, [str(i) for i in range(8)], [r for rnd in SWISS_ROUNDS for r in rnd])
    assert [r["name"] for r in rows] == ["6", "0", "3", "2", "4", "5", "7", "1"]
    assert [r["points"] for r in rows] == [3, 2, 2, 1.5, 1.5, 1, 1, 0]
    assert [r["buchholz"] for r in rows] == [4.5, 4.5, 2.5, 5.5, 5.5, 4.5, 4, 5]
    assert (rows[3]["sonneborn_berger"], rows[4]["sonneborn_berger"]) == (2.75, 1.75)


def test_swiss_bye_goes_to_the_lowest_ranked_entry_without_one():
    # five entries, 4 has had a bye: the lowest without one is 3 (ranked by points, then entry order)
    pairs, bye = T.swiss_pairings(5, [1, 1, 0, 0, 1], set(), {4})
    assert bye == 3
    assert pairs == [(0, 1), (4, 2)]
    rows = T.standings(T.SWISS, list("ABC"), [_r(0, 1, 2)], byes=[2])
    assert [(r["name"], r["points"], r["byes"]) for r in rows] == [("A", 1, 0), ("C", 1, 1), ("B", 0, 0)]


def test_a_log_plays_a_swiss_round_by_round():
    entries = [{"name": str(i), "kind": "policy", "policy": "basic", "rating_name": str(i)} for i in range(8)]
    state = T.evolve(None, T.create(T.SWISS, "gin-rami", entries, 3, 2, {}, None, None, True, 0))
    for rnd in SWISS_ROUNDS:
        paired = T.decide_next(state)
        assert paired["type"] == T.ROUND_PAIRED
        assert paired["data"]["pairings"] == [[r["a"], r["b"]] for r in rnd]
        state = T.evolve(state, paired)
        assert T.decide_next(state) is None  # the round is in play
        for p, r in enumerate(rnd):
            state = T.evolve(state, T.decide_played(state, state.round_no, p, r["totals"], None, []))
            assert T.decide_played(state, state.round_no, p, r["totals"], None, []) is None  # once only
    assert T.decide_next(state)["type"] == T.TOURNAMENT_FINISHED
    assert [r["name"] for r in T.standings_of(state)] == ["6", "0", "3", "2", "4", "5", "7", "1"]


def test_bad_tournaments_are_refused():
    one = [{"name": "a"}]
    with pytest.raises(RulesError):
        T.create(T.SWISS, "gin-rami", one, 1, 1, {}, None, None, True, 0)
    with pytest.raises(RulesError):
        T.create("knockout", "gin-rami", one * 2, 1, 1, {}, None, None, True, 0)
    with pytest.raises(RulesError):
        T.create(T.SWISS, "gin-rami", [{"name": "a"}, {"name": "b"}], 2, 1, {}, None, None, True, 0)


def test_pairing_match_ids_are_fixed_and_distinct():
    ids = {T.pairing_match_id("t", r, p) for r in range(3) for p in range(4)}
    assert len(ids) == 12 and all(len(i) == 16 for i in ids)
    assert T.pairing_match_id("t", 1, 2) == T.pairing_match_id("t", 1, 2)
