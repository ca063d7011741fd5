"""The state cache of GameRepository on Redis (the tail read is Redis's own XRANGE)."""

import pytest
from support.repository_cache_behaviour import RepositoryCacheBehaviour

from service.store.redis_store import RedisEventStore


class TestRepositoryCacheOnRedis(RepositoryCacheBehaviour):
    @pytest.fixture
    def make_stores(self, redis_conn, key_prefix):
        return lambda n: [RedisEventStore(redis_conn, prefix=f"{key_prefix}s{i}") for i in range(n)]
