"""The event store: every game's append-only log of events, the single source of truth.

Beside it, derived from the logs: the game index (``GameIndex``, a projection each append keeps
up to date) and the snapshots (``SnapshotStore``, which only shorten replays).
"""

from service.store.base import EventStore, GameIndex, Recorded, SnapshotStore
from service.store.errors import ConcurrencyError, IdempotencyConflict, InvalidCursor, StoreError, UnknownGame
from service.store.memory import InMemoryEventStore

__all__ = [
    "ConcurrencyError",
    "EventStore",
    "GameIndex",
    "IdempotencyConflict",
    "InMemoryEventStore",
    "InvalidCursor",
    "Recorded",
    "RedisEventStore",
    "SnapshotStore",
    "StoreError",
    "UnknownGame",
]


def __getattr__(name):
    # the Redis implementation is imported on first use, so the in-memory store needs no redis
    if name == "RedisEventStore":
        from service.store.redis_store import RedisEventStore

        return RedisEventStore
    raise AttributeError(name)
