"""The behaviour suite of the analyses' records on Redis, and where a record lives."""

import pytest
from support.analyses_behaviour import NOW, AnalysesBehaviour

from service.store.analyses import KEEP_MS, RedisAnalyses


class TestRedisAnalyses(AnalysesBehaviour):
    @pytest.fixture
    def analyses(self, redis_conn, key_prefix):
        return RedisAnalyses(redis_conn, key_prefix)


def test_a_record_lives_in_the_game_s_slot_apart_from_its_log_and_expires(redis_conn, key_prefix):
    store = RedisAnalyses(redis_conn, key_prefix, version=3)
    store.create("abc", NOW)
    key = f"{key_prefix}:{{abc}}:analysis:v3"
    assert redis_conn.exists(key) == 1
    assert redis_conn.exists(f"{key_prefix}:{{abc}}:stream") == 0
    assert 0 < redis_conn.pttl(key) <= KEEP_MS
    # another analysis version is another record
    assert RedisAnalyses(redis_conn, key_prefix, version=4).get("abc") is None
