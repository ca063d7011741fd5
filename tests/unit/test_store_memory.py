"""The EventStore contract on the in-memory backend."""

import pytest
from store_contract import EventStoreContract, TestCodec

from service.store import InMemoryEventStore


class TestInMemoryEventStore(EventStoreContract):
    @pytest.fixture
    def make_store(self):
        return lambda codec=None, clock=None: InMemoryEventStore(codec or TestCodec(), clock=clock)
