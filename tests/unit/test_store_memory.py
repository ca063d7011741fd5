"""The EventStore behaviour suite (with its index and snapshots) on the in-memory backend."""

import pytest
from support.store_behaviour import EngineEventsBehaviour, EventStoreBehaviour, GameRepositoryBehaviour, TestCodec

from service.store import InMemoryEventStore


class TestInMemoryEventStore(EventStoreBehaviour):
    @pytest.fixture
    def make_store(self):
        return lambda codec=None, clock=None: InMemoryEventStore(codec or TestCodec(), clock=clock)


class TestInMemoryEventStoreWithEngineEvents(EngineEventsBehaviour):
    @pytest.fixture
    def make_store(self):
        return lambda codec=None, clock=None: InMemoryEventStore(codec or TestCodec(), clock=clock)


class TestGameRepositoryInMemory(GameRepositoryBehaviour):
    @pytest.fixture
    def make_store(self):
        return lambda codec=None, clock=None: InMemoryEventStore(codec or TestCodec(), clock=clock)


def test_a_store_built_without_a_codec_packs_the_engine_events():
    from service.rules import codec

    assert InMemoryEventStore().codec is codec
