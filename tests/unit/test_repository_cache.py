"""The state cache of GameRepository on the in-memory store, and the cache's own bounds."""

import pytest
from support.repository_cache_behaviour import RepositoryCacheBehaviour

from service.store import InMemoryEventStore
from service.store.repository import StateCache


class TestRepositoryCacheInMemory(RepositoryCacheBehaviour):
    @pytest.fixture
    def make_stores(self):
        return lambda n: [InMemoryEventStore() for _ in range(n)]


class _State:
    def __init__(self, version):
        self.version = version


def test_a_state_cache_answers_the_version_asked_or_the_newest_before_it():
    cache = StateCache(max_games=4, per_game=3)
    for v in (3, 7, 5):
        cache.put("g", _State(v))
    assert cache.get("g").version == 7
    assert cache.get("g", upto=5).version == 5
    assert cache.get("g", upto=6).version == 5
    assert cache.get("g", upto=100).version == 7
    assert cache.get("g", upto=2) is None
    assert cache.get("other") is None


def test_a_state_cache_keeps_the_newest_states_of_the_games_used_last():
    cache = StateCache(max_games=2, per_game=2)
    for v in (1, 2, 3):
        cache.put("a", _State(v))
    assert cache.get("a", upto=1) is None  # the oldest of a's three states went
    cache.put("b", _State(1))
    cache.get("a")  # a is now used more recently than b
    cache.put("c", _State(1))
    assert cache.get("b") is None
    assert cache.get("a").version == 3 and cache.get("c").version == 1
    cache.forget("a")
    assert cache.get("a") is None
