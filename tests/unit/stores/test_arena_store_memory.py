"""The arena store behaviour suite on the in-memory backend, and the times its keys run out by."""

import pytest
from support.arena_store_behaviour import NOW, ArenaStoreBehaviour, challenge
from support.clocks import ManualClock

from service.store.arena import CHALLENGE_KEEP_MS
from service.store.memory_arena import InMemoryArenaStore


class TestInMemoryArenaStore(ArenaStoreBehaviour):
    @pytest.fixture
    def make_arena_store(self):
        return lambda **options: InMemoryArenaStore("gbt-memory", **options)


def test_a_pending_challenge_is_kept_until_its_expiry_and_a_week_more():
    clock = ManualClock(NOW)
    arena = InMemoryArenaStore(clock=clock)
    arena.add_challenge(challenge("c1", expires=NOW + 1_000), per_bot=5, per_challenger=5, now_ms=NOW)
    clock.advance(1_000 + CHALLENGE_KEEP_MS - 1)
    assert arena.challenge("c1") is not None
    clock.advance(1)
    assert arena.challenge("c1") is None
    assert arena.decide_challenge("c1", "accepted", {}) is None


def test_an_answered_challenge_is_kept_a_week_from_its_answer():
    clock = ManualClock(NOW)
    arena = InMemoryArenaStore(clock=clock)
    arena.add_challenge(challenge("c1", expires=NOW + 1_000), per_bot=5, per_challenger=5, now_ms=NOW)
    clock.advance(500)
    arena.decide_challenge("c1", "declined", {})
    clock.advance(CHALLENGE_KEEP_MS - 1)
    assert arena.challenge("c1")["status"] == "declined"
    clock.advance(1)
    assert arena.challenge("c1") is None


def test_a_challenge_being_accepted_keeps_its_time_to_live():
    clock = ManualClock(NOW)
    arena = InMemoryArenaStore(clock=clock)
    arena.add_challenge(challenge("c1", expires=NOW + 1_000), per_bot=5, per_challenger=5, now_ms=NOW)
    clock.advance(999)
    arena.decide_challenge("c1", "accepting", {"accepting_since": clock()})
    clock.advance(CHALLENGE_KEEP_MS)  # to 1 ms before the time to live it was added with
    assert arena.challenge("c1")["status"] == "accepting"
    clock.advance(1)
    assert arena.challenge("c1") is None


def test_stream_ids_follow_the_clock_and_count_up_within_a_millisecond():
    clock = ManualClock(NOW)
    arena = InMemoryArenaStore(clock=clock)
    first, second = arena.notify("alpha", "a", {}), arena.notify("alpha", "b", {})
    clock.advance(5)
    third = arena.notify("alpha", "c", {})
    assert [first, second, third] == [f"{NOW}-0", f"{NOW}-1", f"{NOW + 5}-0"]


def test_a_stream_keeps_exactly_its_newest_entries():
    arena = InMemoryArenaStore(stream_max_len=3)
    ids = [arena.notify("alpha", "n", {"n": n}) for n in range(5)]
    assert [entry[0] for entry in arena.read_stream("alpha", "0")] == ids[-3:]
