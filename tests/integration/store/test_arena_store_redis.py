"""The arena store behaviour suite on Redis, and the times its keys run out by."""

import pytest
from support.arena_store_behaviour import NOW, ArenaStoreBehaviour, challenge

from service.store.arena import CHALLENGE_KEEP_MS, RedisArenaStore


class TestRedisArenaStore(ArenaStoreBehaviour):
    @pytest.fixture
    def make_arena_store(self, redis_conn, key_prefix):
        return lambda **options: RedisArenaStore(redis_conn, key_prefix, **options)


def test_a_pending_challenge_is_kept_until_its_expiry_and_a_week_more(redis_conn, key_prefix):
    arena = RedisArenaStore(redis_conn, key_prefix)
    arena.add_challenge(challenge("c1", expires=NOW + 1_000), per_bot=5, per_challenger=5, now_ms=NOW)
    ttl = redis_conn.pttl(f"{key_prefix}:arena:challenge:{{c1}}")
    assert 1_000 + CHALLENGE_KEEP_MS - 5_000 < ttl <= 1_000 + CHALLENGE_KEEP_MS


def test_an_answered_challenge_is_kept_a_week_from_its_answer(redis_conn, key_prefix):
    arena = RedisArenaStore(redis_conn, key_prefix)
    arena.add_challenge(challenge("c1", expires=NOW + 1_000), per_bot=5, per_challenger=5, now_ms=NOW)
    arena.decide_challenge("c1", "declined", {})
    ttl = redis_conn.pttl(f"{key_prefix}:arena:challenge:{{c1}}")
    assert CHALLENGE_KEEP_MS - 5_000 < ttl <= CHALLENGE_KEEP_MS
