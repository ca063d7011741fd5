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
