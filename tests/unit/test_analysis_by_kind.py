"""The points each player gave away per hand by decision kind, summed over several analyses by hand."""

from service.analysis.by_kind import KINDS, by_kind_table, given_away_by_kind


def _result(players, hands, decisions):
    return {"game": {"players": players, "hands": hands},
            "decisions": [{"seat": s, "kind": k, "loss": x} for s, k, x in decisions]}


def test_losses_are_summed_by_name_across_seats_and_divided_by_the_hands_played():
    first = _result(["ann", "bob"], 2, [(0, "discard", 3.0), (1, "draw", 1.0), (0, "knock", 1.0)])
    second = _result(["bob", "ann"], 3, [(0, "discard", 5.0), (1, "discard", 2.0), (1, "upcard", 0.5)])
    rows = {r["name"]: r for r in given_away_by_kind([first, second])}
    assert list(rows) == ["ann", "bob"]
    # ann: 5 hands; discards 3 + 2 = 5, knock 1, upcard 0.5: 6.5 in all
    assert rows["ann"]["hands"] == 5 and rows["ann"]["games"] == 2 and rows["ann"]["decisions"] == 4
    assert rows["ann"]["per_hand"] == {"upcard": 0.1, "draw": 0.0, "discard": 1.0, "knock": 0.2, "gin": 0.0,
                                       "arrangement": 0.0}
    assert rows["ann"]["total_per_hand"] == 1.3
    # bob: 5 hands; draw 1, discard 5: 6 in all
    assert rows["bob"]["per_hand"]["discard"] == 1.0 and rows["bob"]["per_hand"]["draw"] == 0.2
    assert rows["bob"]["total_per_hand"] == 1.2


def test_the_table_has_a_column_per_kind_and_a_line_per_player():
    text = by_kind_table(given_away_by_kind([_result(["ann", "bob"], 1, [(1, "gin", 10.0)])]))
    lines = text.splitlines()
    assert lines[1].split() == ["player", "hands", *KINDS, "all"]
    assert lines[3].split() == ["bob", "1", "0.00", "0.00", "0.00", "0.00", "10.00", "0.00", "10.00"]
