"""How every store of creations' recorded answers behaves (CreationRecords, InMemoryCreationRecords):
an abstract test class, subclassed once per backend.

A subclass provides the fixture ``make_records`` -> ``make(secret=None, lease_ms=...)``, returning
fresh records under a key prefix of its own (the same for two made by one test, as for two API
processes); and ``later`` -> ``later(ms)``, which lets ``ms`` pass for what runs out on its own.
"""

from __future__ import annotations

import pytest

from service.store.creations import Claimed, InUse, Made, RecordedAnswer, Unsettled

KEY = "k" * 22 + "-creation-key"
SCOPE = "POST /games"
ANSWER = RecordedAnswer("fp-1", 201, {"Location": "/games/abc"}, b'{"game_id":"abc"}')


class CreationRecordsBehaviour:
    """Behaviour every store of recorded creation answers must show."""

    @pytest.fixture
    def make_records(self):
        raise NotImplementedError("a backend's subclass provides make_records")

    @pytest.fixture
    def later(self):
        raise NotImplementedError("a backend's subclass provides later")

    @pytest.fixture
    def records(self, make_records):
        return make_records()

    def test_the_first_request_with_a_key_claims_it_and_the_next_is_told_it_is_in_use(self, records):
        assert isinstance(records.slot(SCOPE, KEY).claim(), Claimed)
        assert isinstance(records.slot(SCOPE, KEY).claim(), InUse)

    def test_a_recorded_answer_is_what_the_next_request_with_the_key_finds(self, records):
        slot = records.slot(SCOPE, KEY)
        assert slot.record(slot.claim(), ANSWER) is True
        assert records.slot(SCOPE, KEY).claim() == ANSWER

    def test_a_claim_given_up_frees_the_key(self, records):
        slot = records.slot(SCOPE, KEY)
        assert slot.release(slot.claim()) is True
        assert isinstance(records.slot(SCOPE, KEY).claim(), Claimed)

    def test_an_unsettled_claim_is_found_with_its_fingerprint_and_taken_over_once(self, records):
        slot = records.slot(SCOPE, KEY)
        assert slot.unsettle(slot.claim(), "fp-unknown") is True
        found = records.slot(SCOPE, KEY).claim()
        assert isinstance(found, Unsettled) and found.fingerprint == "fp-unknown"
        taken = records.slot(SCOPE, KEY).take_over(found)
        assert isinstance(taken, Claimed)
        assert isinstance(records.slot(SCOPE, KEY).take_over(found), InUse)  # the mark read is gone
        assert slot.record(taken, ANSWER) is True
        assert records.slot(SCOPE, KEY).claim() == ANSWER

    def test_a_claim_runs_out_after_its_lease_and_its_holder_can_settle_it_no_more(self, make_records, later):
        records = make_records(lease_ms=50)
        slot = records.slot(SCOPE, KEY)
        first = slot.claim()
        later(60)
        second = records.slot(SCOPE, KEY).claim()
        assert isinstance(second, Claimed)
        assert slot.record(first, ANSWER) is False
        assert slot.release(first) is False
        assert slot.unsettle(first, "fp-late") is False
        assert isinstance(records.slot(SCOPE, KEY).claim(), InUse)  # still the second request's

    def test_a_key_chosen_in_two_scopes_names_two_slots(self, records):
        mine = records.slot(SCOPE, KEY)
        mine.record(mine.claim(), ANSWER)
        assert isinstance(records.slot("POST /matches", KEY).claim(), Claimed)
        assert records.slot(SCOPE, KEY).name != records.slot("POST /matches", KEY).name

    def test_records_that_share_the_servers_secret_name_the_same_slot(self, make_records):
        one, other = make_records(secret="s3cret"), make_records(secret="s3cret")
        assert one.slot(SCOPE, KEY).name == other.slot(SCOPE, KEY).name

    def test_another_secret_names_another_slot(self, make_records):
        one, other = make_records(secret="s3cret"), make_records(secret="another")
        assert one.slot(SCOPE, KEY).name != other.slot(SCOPE, KEY).name

    def test_what_a_key_makes_is_fixed_by_the_key_the_scope_and_the_request(self, make_records):
        one, other = make_records(secret="s3cret"), make_records(secret="s3cret")
        made, again = Made(one.slot(SCOPE, KEY), "fp-1"), Made(other.slot(SCOPE, KEY), "fp-1")
        assert made.game_id() == again.game_id() and made.log_key == again.log_key
        assert made.token("seat:0") == again.token("seat:0") != made.token("seat:1")
        assert Made(one.slot(SCOPE, KEY), "fp-2").token("seat:0") != made.token("seat:0")
        assert Made(one.slot("POST /matches", KEY), "fp-1").game_id() != made.game_id()
        assert not made.token("seat:0").startswith("-")
