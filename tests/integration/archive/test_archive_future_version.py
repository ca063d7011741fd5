"""A game whose archived record is of a format version this server does not know reads as an error
with a stable code, never as some other log."""

from __future__ import annotations

import pytest
from support.store_behaviour import played_game

from service.rules import archive, codec
from service.store.errors import ArchiveUnreadable
from service.store.redis_store import RedisEventStore


def test_a_record_from_a_newer_server_is_refused_clearly(redis_conn, key_prefix):
    store = RedisEventStore(redis_conn, codec=codec, prefix=key_prefix)
    version = 0
    for batch in played_game("three-hand", seed=10):  # a game that ends
        version = store.append("g1", batch, version)
    assert store.archive("g1")
    key = f"{key_prefix}:{{g1}}:archive"
    record = redis_conn.get(key)
    redis_conn.set(key, record[:3] + bytes([archive.FORMAT_VERSION + 1]) + record[4:])

    newer = RedisEventStore(redis_conn, codec=codec, prefix=key_prefix)  # nothing decoded in memory
    for read in (lambda: newer.load("g1"), lambda: newer.load("g1", after=3, upto=9), lambda: newer.tail("g1", 2)):
        with pytest.raises(ArchiveUnreadable) as refused:
            read()
        assert refused.value.code == "archive_format_unsupported" and refused.value.game_id == "g1"
    assert newer.version("g1") == version  # the game is there, at its version; only its log cannot be read
