"""The behaviour suite of the creations' recorded answers on Redis."""

import time

import pytest
from support.creation_records_behaviour import ANSWER, KEY, SCOPE, CreationRecordsBehaviour

from service.store.creations import CreationRecords


class TestRedisCreationRecords(CreationRecordsBehaviour):
    @pytest.fixture
    def make_records(self, redis_conn, key_prefix):
        return lambda **options: CreationRecords(redis_conn, key_prefix, **options)

    @pytest.fixture
    def later(self):
        # a claim runs out by Redis's own clock
        return lambda ms: time.sleep(ms / 1000)


def test_two_processes_with_the_servers_secret_find_each_others_answers(redis_conn, key_prefix):
    one, other = CreationRecords(redis_conn, key_prefix, secret="s3cret"), CreationRecords(redis_conn, key_prefix,
                                                                                            secret="s3cret")
    slot = one.slot(SCOPE, KEY)
    slot.record(slot.claim(), ANSWER)
    assert other.slot(SCOPE, KEY).claim() == ANSWER


def test_two_processes_without_a_secret_share_the_one_kept_in_redis(redis_conn, key_prefix):
    one, other = CreationRecords(redis_conn, key_prefix), CreationRecords(redis_conn, key_prefix)
    assert one.pepper() == other.pepper()
    slot = one.slot(SCOPE, KEY)
    slot.record(slot.claim(), ANSWER)
    assert other.slot(SCOPE, KEY).claim() == ANSWER
