"""The behaviour suite of the creations' recorded answers on the in-memory backend."""

import pytest
from support.clocks import ManualClock
from support.creation_records_behaviour import ANSWER, KEY, SCOPE, CreationRecordsBehaviour

from service.store.creations import Claimed, InMemoryCreationRecords


class TestInMemoryCreationRecords(CreationRecordsBehaviour):
    @pytest.fixture
    def clock(self):
        return ManualClock()

    @pytest.fixture
    def make_records(self, clock):
        return lambda **options: InMemoryCreationRecords("gbt-memory", clock=clock, **options)

    @pytest.fixture
    def later(self, clock):
        return clock.advance


def test_a_record_is_replayed_for_its_ttl_then_forgotten():
    clock = ManualClock()
    records = InMemoryCreationRecords(ttl_s=60, clock=clock)
    slot = records.slot(SCOPE, KEY)
    slot.record(slot.claim(), ANSWER)
    clock.advance(60_000 - 1)
    assert records.slot(SCOPE, KEY).claim() == ANSWER
    clock.advance(1)
    assert isinstance(records.slot(SCOPE, KEY).claim(), Claimed)


def test_records_made_without_a_secret_keep_one_of_their_own():
    one, other = InMemoryCreationRecords(), InMemoryCreationRecords()
    assert one.pepper() == one.pepper() and len(one.pepper()) == 32
    assert one.slot(SCOPE, KEY).name != other.slot(SCOPE, KEY).name
