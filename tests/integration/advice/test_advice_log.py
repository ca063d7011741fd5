"""The advice log's behaviour, the same on Redis and in memory (service/store/advice.py)."""

from __future__ import annotations

import threading

import pytest

from service.rules import events as ev
from service.store.advice import AdviceLimitReached, InMemoryAdviceLog, RedisAdviceLog
from service.store.errors import ConcurrencyError, IdempotencyConflict
from service.store.memory import InMemoryEventStore
from service.store.redis_store import RedisEventStore

GAME = "advicelogtest001"


@pytest.fixture(params=["redis", "memory"])
def logs(request, redis_conn, key_prefix):
    """(event store, advice log) of one backend, with a game of two events."""
    if request.param == "redis":
        store = RedisEventStore(redis_conn, prefix=key_prefix)
        advice = RedisAdviceLog(redis_conn, prefix=key_prefix)
    else:
        store = InMemoryEventStore()
        advice = InMemoryAdviceLog(store)
    store.append(GAME, [ev.SeatClaimed(0, {"name": "a"}), ev.SeatClaimed(1, {"name": "b"})], 0)
    return store, advice


def _entry(text: str) -> dict:
    return {"hand_no": 1, "advisor": 2, "captain": 1, "text": text}


def test_advice_is_keyed_by_version_and_rank_and_read_in_order(logs):
    store, advice = logs
    assert [advice.give(GAME, 2, _entry(t), 3).seq for t in "ab"] == [0, 1]
    store.append(GAME, [ev.SeatClaimed(2, {"name": "c"})], 2)
    assert advice.give(GAME, 3, _entry("c"), 3).seq == 0
    read = advice.read(GAME)
    assert [(r.version, r.seq, r.entry["text"]) for r in read] == [(2, 0, "a"), (2, 1, "b"), (3, 0, "c")]
    assert [r.entry["text"] for r in advice.read(GAME, after=(2, 0))] == ["b", "c"]
    assert advice.read("nosuchgame000000") == []


def test_advice_at_a_version_the_game_is_not_at_is_refused_and_not_recorded(logs):
    _, advice = logs
    for version in (1, 3):
        with pytest.raises(ConcurrencyError):
            advice.give(GAME, version, _entry("late"), 3)
    assert advice.read(GAME) == []


def test_the_limit_per_version_holds_even_under_racing_writers(logs):
    _, advice = logs
    outcomes = []

    def give(i):
        try:
            advice.give(GAME, 2, _entry(f"t{i}"), 3)
            outcomes.append("ok")
        except AdviceLimitReached:
            outcomes.append("limit")

    threads = [threading.Thread(target=give, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["limit"] * 5 + ["ok"] * 3
    assert [r.seq for r in advice.read(GAME)] == [0, 1, 2]


def test_an_idempotency_key_returns_the_first_record_and_refuses_another_request(logs):
    _, advice = logs
    first = advice.give(GAME, 2, _entry("once"), 3, "k1", "fp1")
    assert advice.give(GAME, 2, _entry("once"), 3, "k1", "fp1") == first
    with pytest.raises(IdempotencyConflict):
        advice.give(GAME, 2, _entry("other"), 3, "k1", "fp2")
    assert len(advice.read(GAME)) == 1
