"""What the in-memory state cache of GameRepository may never change: every state it answers is the log's.

One abstract test class, RepositoryCacheBehaviour, subclassed once per backend. A subclass
provides the fixture ``make_stores`` -> ``make(n)``: n independent, empty stores with the engine's events (a game id
in one says nothing of the same id in another).
"""

from __future__ import annotations

import pytest
from support.store_behaviour import append_all, played_game, snapshots_of, states_after_every_version

from service.rules import commands, game
from service.store.repository import GameRepository, StateCache


class RepositoryCacheBehaviour:
    @pytest.fixture(scope="class")
    @classmethod
    def batches(cls):
        return played_game("gin-rami", seed=21)  # a game of 637 events that ends

    @pytest.fixture(scope="class")
    @classmethod
    def expected(cls, batches):
        return states_after_every_version(batches)

    def test_tail_is_what_follows_a_version_the_log_holds_and_none_past_its_end(self, make_stores, batches):
        (store,) = make_stores(1)
        version = append_all(store, batches[:6])
        assert version > 3
        assert [r.version for r in store.tail("g1", 3)] == list(range(4, version + 1))
        assert [r.event for r in store.tail("g1", 3)] == [r.event for r in store.load("g1", after=3)]
        assert store.tail("g1", version) == []
        assert store.tail("g1", version + 1) is None
        assert store.tail("nobody", 1) is None
        with pytest.raises(ValueError):
            store.tail("g1", 0)

    def test_a_repository_catches_up_with_appends_made_through_another(self, make_stores, batches, expected):
        (store,) = make_stores(1)
        writer = GameRepository(store, snapshots_of(store), snapshot_every=25)
        reader = GameRepository(store, snapshots_of(store), snapshot_every=25)
        state = None
        for i, batch in enumerate(batches[:120]):
            state = writer.save("g1", state, batch).state
            if i % 7 == 0:  # the reader falls behind by a few commands between its reads
                assert reader.load_state("g1") == expected[state.version]
        assert reader.load_state("g1") == expected[state.version]
        assert writer.load_state("g1") == expected[state.version]

    def test_a_cached_version_the_log_no_longer_holds_is_never_answered(self, make_stores, batches, expected):
        # a Redis that lost its last writes: the repository's memory is ahead of the log
        full, shorter = make_stores(2)
        append_all(full, batches[:40])
        short_version = append_all(shorter, batches[:25])
        repo = GameRepository(full, snapshots_of(full), snapshot_every=10**9)
        ahead = repo.load_state("g1")
        assert ahead.version > short_version
        repo.store = shorter
        assert repo.load_state("g1") == expected[short_version]
        assert repo.load_state("g1", upto=short_version - 3) == expected[short_version - 3]

    def test_every_version_and_the_latest_are_the_replay_in_any_order_of_reads(self, make_stores, batches, expected):
        import random

        (store,) = make_stores(1)
        last = append_all(store, batches[:200])
        repo = GameRepository(store, snapshots_of(store), snapshot_every=30, cache=StateCache(max_games=2, per_game=3))
        rng = random.Random(4)
        for _ in range(150):
            if rng.random() < 0.2:
                assert repo.load_state("g1") == expected[last]
            else:
                version = rng.randint(1, last)
                assert repo.load_state("g1", upto=version) == expected[version]

    def test_a_retried_save_whose_events_differ_leaves_readers_the_logs_state(self, make_stores, batches, expected):
        # a copy of an idempotent request recorded first answers the same version with other events
        # (say, a policy on a clock that chose another discard): the log's state must be read back
        (store,) = make_stores(1)
        repo = GameRepository(store, snapshots_of(store), snapshot_every=10**9)
        state = None
        for batch in batches:
            state = repo.save("g1", state, batch).state
            if state.phase == "discard" and len(game.legal_moves(state, state.to_act[0])) > 2:
                break
        seat = state.to_act[0]
        discards = [m for m in game.legal_moves(state, seat) if isinstance(m, commands.Discard)]
        first = game.decide(state, seat, discards[0])
        other = game.decide(state, seat, discards[1])
        assert len(first) == len(other) and first != other
        recorded = repo.save("g1", state, first, "key", fingerprint="same request")
        retried = repo.save("g1", state, other, "key", fingerprint="same request")
        assert retried.version == recorded.version
        assert (recorded.replayed, retried.replayed) == (False, True)
        assert retried.state == recorded.state  # the log's, not the one its own events would make
        replay = game.replay([r.event for r in store.load("g1")])
        assert repo.load_state("g1") == replay == recorded.state
        assert GameRepository(store, snapshots_of(store)).load_state("g1", upto=recorded.version) == replay

    def test_a_creation_retried_with_a_seed_of_its_own_answers_the_logs_game(self, make_stores):
        # a creation's copy recorded first: the retry's start has another seed, and as many events
        # (neither cut for the deal tied), so only the store can say that nothing was appended
        (store,) = make_stores(1)
        repo = GameRepository(store, snapshots_of(store), snapshot_every=10**9)
        starts = [game.start(game.GameSpec(variant="gin-rami", players=[{"name": "ann"}, {"name": "bob"}],
                                           seed=bytes([i]) * 32)) for i in range(1, 20)]
        first, other = [s for s in starts if len(s) == len(starts[0])][:2]
        assert first != other
        made = repo.save("g1", None, first, "key", fingerprint="same request")
        again = repo.save("g1", None, other, "key", fingerprint="same request")
        assert (made.replayed, again.replayed) == (False, True)
        assert again.version == made.version == len(first)
        assert again.state == made.state == game.replay([r.event for r in store.load("g1")])

    def test_an_unknown_game_is_unknown_after_another_game_was_read(self, make_stores, batches):
        from service.store.errors import UnknownGame

        (store,) = make_stores(1)
        append_all(store, batches[:5])
        repo = GameRepository(store, snapshots_of(store))
        repo.load_state("g1")
        with pytest.raises(UnknownGame):
            repo.load_state("g2")
