"""The behaviour suite of the bot games' counts on the in-memory backend."""

import pytest
from support.bot_games_behaviour import BotGamesBehaviour
from support.store_behaviour import TestCodec

from service.store.bot_games import InMemoryBotGames
from service.store.memory import InMemoryEventStore


class TestInMemoryBotGames(BotGamesBehaviour):
    @pytest.fixture
    def make_counts(self):
        def make(**options):
            store = InMemoryEventStore(TestCodec())
            return InMemoryBotGames(store.index, **options), store

        return make

    @pytest.fixture
    def later(self):
        # the in-memory counts are timed by the callers' now_ms alone: nothing to wait for
        return lambda ms: None
