"""How every store of decision analyses behaves (RedisAnalyses, InMemoryAnalyses): an abstract test
class, subclassed once per backend, which provides the fixture ``analyses`` (a fresh, empty store)."""

from __future__ import annotations

import pytest

from service.store.analyses import CLAIM_STALE_MS, MAX_RESULT_BYTES, ResultTooLarge

NOW = 1_700_000_000_000
RESULT = {"analysis_version": 1, "decisions": [{"version": 5, "kind": "discard", "loss": 0.0},
                                               {"version": 7, "kind": "knock", "loss": 2.5},
                                               {"version": 7, "kind": "arrangement", "loss": 0.0}]}


class AnalysesBehaviour:
    """Behaviour every store of analyses must show."""

    @pytest.fixture
    def analyses(self):
        raise NotImplementedError("a backend's subclass provides analyses")

    def test_an_unknown_game_has_no_record(self, analyses):
        assert analyses.get("g1") is None

    def test_a_record_goes_queued_running_done_with_its_progress(self, analyses):
        assert analyses.create("g1", NOW) is True
        got = analyses.get("g1")
        assert (got["status"], got["done"], got["total"], got["requested"]) == ("queued", 0, 0, NOW)
        assert "result" not in got
        assert analyses.progress("g1", 3, 40) is True
        got = analyses.get("g1")
        assert (got["status"], got["done"], got["total"]) == ("running", 3, 40)
        assert analyses.finish("g1", RESULT) is True
        got = analyses.get("g1")
        # the decisions as the progress counts them: a knock's arrangement counts with its knock
        assert (got["status"], got["done"], got["total"]) == ("done", 2, 2)
        assert got["result"] == RESULT

    def test_a_second_create_keeps_the_first_record(self, analyses):
        assert analyses.create("g1", NOW)
        analyses.progress("g1", 5, 9)
        assert analyses.create("g1", NOW + 10) is False
        got = analyses.get("g1")
        assert (got["status"], got["done"], got["requested"]) == ("running", 5, NOW)

    def test_a_done_record_is_never_written_over(self, analyses):
        analyses.create("g1", NOW)
        analyses.finish("g1", RESULT)
        assert analyses.finish("g1", {"analysis_version": 1, "decisions": []}) is False
        assert analyses.progress("g1", 1, 9) is False
        assert analyses.fail("g1", "killed") is False
        assert analyses.create("g1", NOW + 1) is False
        assert analyses.get("g1")["result"] == RESULT

    def test_a_failed_record_may_be_created_again(self, analyses):
        analyses.create("g1", NOW)
        assert analyses.fail("g1", "x" * 1000) is True
        got = analyses.get("g1")
        assert got["status"] == "failed" and len(got["error"]) == 300
        assert analyses.create("g1", NOW + 5) is True
        got = analyses.get("g1")
        assert (got["status"], got["requested"]) == ("queued", NOW + 5) and "error" not in got

    def test_progress_without_a_record_writes_nothing(self, analyses):
        assert analyses.progress("g1", 1, 2) is False
        assert analyses.finish("g1", RESULT) is False
        assert analyses.get("g1") is None

    def test_a_result_over_the_bound_is_refused(self, analyses):
        analyses.create("g1", NOW)
        with pytest.raises(ResultTooLarge):
            analyses.finish("g1", {"decisions": [], "pad": "x" * MAX_RESULT_BYTES})
        assert analyses.get("g1")["status"] == "queued"

    def test_the_games_are_kept_apart(self, analyses):
        analyses.create("g1", NOW)
        analyses.create("g2", NOW)
        analyses.finish("g2", RESULT)
        assert analyses.get("g1")["status"] == "queued"
        assert analyses.get("g2")["status"] == "done"

    def test_the_caps_count_per_caller_and_server_wide_and_refuse_unwritten(self, analyses):
        for g in ("g1", "g2"):
            analyses.create(g, NOW)
            assert analyses.claim("addr:a", g, 2, 3, NOW) is None
        assert analyses.claim("addr:a", "g3", 2, 3, NOW) == "caller"
        analyses.create("g3", NOW)
        assert analyses.claim("addr:b", "g3", 2, 3, NOW) is None
        assert analyses.claim("addr:c", "g4", 2, 3, NOW) == "server"
        assert analyses.queued("addr:c", NOW) == []
        assert analyses.queued("addr:a", NOW) == ["g1", "g2"]
        assert analyses.queued(None, NOW) == ["g1", "g2", "g3"]

    def test_a_claim_of_a_game_counted_already_counts_once(self, analyses):
        analyses.create("g1", NOW)
        assert analyses.claim("addr:a", "g1", 1, 1, NOW) is None
        assert analyses.claim("addr:a", "g1", 1, 1, NOW) is None
        assert analyses.queued("addr:a", NOW) == ["g1"]

    def test_an_analysis_done_or_failed_counts_no_more(self, analyses):
        for g in ("g1", "g2"):
            analyses.create(g, NOW)
            analyses.claim("addr:a", g, 2, 0, NOW)
        analyses.finish("g1", RESULT)
        analyses.fail("g2", "boom")
        assert analyses.claim("addr:a", "g3", 2, 0, NOW) is None
        assert analyses.queued("addr:a", NOW) == ["g3"]

    def test_a_claim_without_a_record_lapses_after_the_stale_time(self, analyses):
        assert analyses.claim("addr:a", "g1", 1, 0, NOW) is None
        assert analyses.claim("addr:a", "g2", 1, 0, NOW + CLAIM_STALE_MS - 1) == "caller"
        assert analyses.claim("addr:a", "g2", 1, 0, NOW + CLAIM_STALE_MS) is None

    def test_release_gives_both_places_back(self, analyses):
        analyses.create("g1", NOW)
        analyses.claim("addr:a", "g1", 1, 1, NOW)
        analyses.release("addr:a", "g1")
        assert analyses.queued("addr:a", NOW) == [] and analyses.queued(None, NOW) == []
