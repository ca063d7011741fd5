"""The token store behaviour suite on Redis, and what only the Redis layout promises."""

import pytest
from support.token_store_behaviour import TokenStoreBehaviour

from service.store.tokens import TokenStore, hash_token, issue_token


class TestRedisTokenStore(TokenStoreBehaviour):
    @pytest.fixture
    def make_tokens(self, redis_conn, key_prefix):
        return lambda: TokenStore(redis_conn, key_prefix)


def test_redis_holds_the_hashes_of_the_tokens_never_the_tokens(redis_conn, key_prefix):
    tokens, ann = TokenStore(redis_conn, key_prefix), issue_token()
    tokens.save("g1", {0: ann})
    assert redis_conn.hgetall(tokens.key("g1")) == {b"0": hash_token(ann).encode()}


def test_another_process_trusts_a_seat_it_remembers_for_known_for_s_only(redis_conn, key_prefix):
    import time

    here, there = TokenStore(redis_conn, key_prefix), TokenStore(redis_conn, key_prefix, known_for_s=0.3)
    old, new = issue_token(), issue_token()
    here.save_hashes("g1", {1: hash_token(old)})
    assert there.seat_of("g1", old) == 1  # remembered there
    here.replace_hash("g1", hash_token(old), hash_token(new))
    assert here.seat_of("g1", old) is None and there.seat_of("g1", new) == 1
    time.sleep(0.35)
    assert there.seat_of("g1", old) is None  # read again once its memory is older than known_for_s
