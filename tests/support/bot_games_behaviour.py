"""How every count of games of built-in bots alone behaves (RedisBotGames, InMemoryBotGames): an
abstract test class, subclassed once per backend.

A subclass provides the fixture ``make_counts`` -> ``make(stale_ms=..., keep_ms=...)``, returning
(the counts, an event store whose appends they read the games' status from), both fresh and
empty; and ``later`` -> ``later(ms)``, which lets ``ms`` pass for what runs out on its own.
"""

from __future__ import annotations

import pytest
from support.store_behaviour import events

NOW = 1_700_000_000_000
STALE_MS = 60_000


def start(store, game_id: str, status: str = "playing") -> None:
    """A game's first append, its meta saying ``status``."""
    store.append(game_id, events("created"), 0, meta={"status": status})


def end(store, game_id: str) -> None:
    """An append that ends the game."""
    store.append(game_id, events("ended"), store.version(game_id), meta={"status": "over"})


class BotGamesBehaviour:
    """Behaviour every count of games of built-in bots alone must show."""

    @pytest.fixture
    def make_counts(self):
        raise NotImplementedError("a backend's subclass provides make_counts")

    @pytest.fixture
    def later(self):
        raise NotImplementedError("a backend's subclass provides later")

    @pytest.fixture
    def counted(self, make_counts):
        return make_counts(stale_ms=STALE_MS)

    def test_a_caller_is_counted_up_to_its_cap_and_the_next_is_refused_unwritten(self, counted):
        counts, store = counted
        for game_id in ("g1", "g2"):
            assert counts.claim("addr:a", game_id, 2, NOW) is None
            start(store, game_id)
        assert counts.claim("addr:a", "g3", 2, NOW) == "caller"
        assert counts.in_play("addr:a", NOW) == ["g1", "g2"]

    def test_each_caller_has_a_count_of_its_own(self, counted):
        counts, store = counted
        assert counts.claim("addr:a", "g1", 1, NOW) is None
        assert counts.claim("bot:b", "g2", 1, NOW) is None
        assert counts.in_play("addr:a", NOW) == ["g1"]
        assert counts.in_play("bot:b", NOW) == ["g2"]

    def test_a_bot_and_its_address_are_both_counted_and_a_refusal_gives_every_place_back(self, counted):
        counts, store = counted
        assert counts.claim(("bot:a", "addr:1"), "g1", 1, NOW, server_cap=5) is None
        assert counts.claim(("bot:b", "addr:1"), "g2", 1, NOW, server_cap=5) == "address"
        assert counts.claim(("bot:a", "addr:2"), "g3", 1, NOW, server_cap=5) == "caller"
        assert counts.in_play("bot:b", NOW) == [] and counts.in_play("addr:2", NOW) == []
        assert counts.in_play("addr:1", NOW) == ["g1"] and counts.in_play_on_server(NOW) == ["g1"]
        counts.release(("bot:a", "addr:1"), "g1")
        assert counts.in_play("bot:a", NOW) == counts.in_play("addr:1", NOW) == counts.in_play_on_server(NOW) == []

    def test_the_servers_cap_refuses_and_gives_the_callers_place_back(self, counted):
        counts, store = counted
        assert counts.claim("addr:a", "g1", 5, NOW, server_cap=2) is None
        assert counts.claim("bot:b", "g2", 5, NOW, server_cap=2) is None
        assert counts.claim("addr:c", "g3", 5, NOW, server_cap=2) == "server"
        assert counts.in_play("addr:c", NOW) == []
        assert counts.in_play_on_server(NOW) == ["g1", "g2"]

    def test_the_callers_cap_is_asked_before_the_servers(self, counted):
        counts, store = counted
        assert counts.claim("addr:a", "g1", 1, NOW, server_cap=1) is None
        assert counts.claim("addr:a", "g2", 1, NOW, server_cap=1) == "caller"

    def test_a_cap_of_zero_counts_nothing(self, counted):
        counts, store = counted
        assert counts.claim("addr:a", "g1", 0, NOW, server_cap=0) is None
        assert counts.in_play("addr:a", NOW) == []
        assert counts.in_play_on_server(NOW) == []

    def test_claims_are_listed_in_the_order_they_were_made(self, counted):
        counts, store = counted
        for i, game_id in enumerate(("gc", "ga", "gb")):
            counts.claim("addr:a", game_id, 5, NOW + i)
        assert counts.in_play("addr:a", NOW + 3) == ["gc", "ga", "gb"]

    def test_a_game_over_leaves_both_counts_and_frees_its_place(self, counted):
        counts, store = counted
        assert counts.claim("addr:a", "g1", 1, NOW, server_cap=1) is None
        start(store, "g1")
        assert counts.claim("addr:a", "g2", 1, NOW) == "caller"
        end(store, "g1")
        assert counts.in_play("addr:a", NOW) == []
        assert counts.in_play_on_server(NOW) == []
        assert counts.claim("addr:a", "g2", 1, NOW, server_cap=1) is None

    def test_a_claim_whose_game_was_never_made_counts_until_it_is_stale(self, counted):
        counts, store = counted
        counts.claim("addr:a", "g1", 1, NOW)
        assert counts.in_play("addr:a", NOW + STALE_MS - 1) == ["g1"]
        assert counts.in_play("addr:a", NOW + STALE_MS) == []

    def test_a_game_in_play_counts_however_old_its_claim(self, counted):
        counts, store = counted
        counts.claim("addr:a", "g1", 1, NOW)
        start(store, "g1")
        assert counts.in_play("addr:a", NOW + 100 * STALE_MS) == ["g1"]

    def test_a_released_claim_leaves_both_counts(self, counted):
        counts, store = counted
        counts.claim("addr:a", "g1", 1, NOW, server_cap=3)
        counts.release("addr:a", "g1")
        assert counts.in_play("addr:a", NOW) == []
        assert counts.in_play_on_server(NOW) == []

    def test_a_callers_count_is_forgotten_its_keep_after_its_last_claim(self, make_counts, later):
        counts, store = make_counts(keep_ms=50)
        now = NOW
        counts.claim("addr:a", "g1", 1, now)
        start(store, "g1")
        later(60)
        assert counts.in_play("addr:a", now + 60) == []
        assert counts.claim("addr:a", "g2", 1, now + 60) is None
