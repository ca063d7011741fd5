"""The behaviour suite of the bot games' counts on Redis."""

import time

import pytest
from support.bot_games_behaviour import BotGamesBehaviour
from support.store_behaviour import TestCodec

from service.store.bot_games import RedisBotGames
from service.store.redis_store import RedisEventStore


class TestRedisBotGames(BotGamesBehaviour):
    @pytest.fixture
    def make_counts(self, redis_conn, key_prefix):
        def make(**options):
            store = RedisEventStore(redis_conn, TestCodec(), prefix=key_prefix)
            return RedisBotGames(redis_conn, key_prefix, **options), store

        return make

    @pytest.fixture
    def later(self):
        # a count expires by Redis's own clock
        return lambda ms: time.sleep(ms / 1000)
