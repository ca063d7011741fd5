"""The event store: every game's append-only log of events, the single source of truth."""

from service.store.base import EventStore, Recorded
from service.store.errors import ConcurrencyError, IdempotencyConflict, InvalidCursor, StoreError, UnknownGame
from service.store.memory import InMemoryEventStore

__all__ = [
    "ConcurrencyError",
    "EventStore",
    "IdempotencyConflict",
    "InMemoryEventStore",
    "InvalidCursor",
    "Recorded",
    "RedisEventStore",
    "StoreError",
    "UnknownGame",
]


def __getattr__(name):
    # the Redis implementation is imported on first use, so the in-memory store needs no redis
    if name == "RedisEventStore":
        from service.store.redis_store import RedisEventStore

        return RedisEventStore
    raise AttributeError(name)
