"""The behaviour suite of what the arena keeps of its tournaments beside their logs (service.store.tournaments).

A backend's test module subclasses ``TournamentKeysBehaviour`` and gives ``make_keys``.
"""

from __future__ import annotations


class TournamentKeysBehaviour:
    def test_the_cap_counts_tournaments_in_play_once_each(self, make_keys):
        keys = make_keys()
        assert keys.claim("t1", 2, 1) and keys.claim("t2", 2, 2)
        assert keys.claim("t1", 2, 3)  # counted already: counted once
        assert not keys.claim("t3", 2, 4)
        assert keys.in_play() == ["t1", "t2"] and keys.playing("t2") and not keys.playing("t3")
        keys.release("t1")
        assert keys.claim("t3", 2, 5)
        assert keys.in_play() == ["t2", "t3"]

    def test_no_cap_and_the_latest_first(self, make_keys):
        keys = make_keys()
        for i in range(5):
            assert keys.claim(f"t{i}", 0, 100 + i)
        keys.release("t0")
        assert keys.latest(3) == ["t4", "t3", "t2"]
        assert keys.latest(10)[-1] == "t0"  # a tournament over is still listed

    def test_a_pairings_match_names_its_tournament(self, make_keys):
        keys = make_keys()
        keys.mark_matches("t1", ["m1", "m2"])
        keys.mark_matches("t2", [])
        assert (keys.tournament_of("m1"), keys.tournament_of("m2"), keys.tournament_of("m3")) == ("t1", "t1", None)
