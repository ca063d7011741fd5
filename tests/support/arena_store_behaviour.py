"""How every arena store behaves (RedisArenaStore, InMemoryArenaStore): an abstract test class,
subclassed once per backend.

A subclass provides the fixture ``make_arena_store`` -> ``make(stream_max_len=...)``, returning a
fresh, empty store.
"""

from __future__ import annotations

import threading
import time

import pytest

NOW = 1_700_000_000_000
DAY_MS = 24 * 3600 * 1000


def profile(name: str, **more) -> dict:
    return {"name": name, "description": "", "owner": "", "accepts_matches": False, "created": NOW, **more}


def challenge(challenge_id: str, to: str = "beta", by: str = "bot:alpha", expires: int = NOW + DAY_MS) -> dict:
    """A pending challenge as the arena stores it (the fields the store reads, and a few more)."""
    return {"challenge_id": challenge_id, "from": by.partition(":")[2], "to": to, "by": by, "kind": "game",
            "variant": "gin-rami", "status": "pending", "created": NOW, "expires": expires}


class ArenaStoreBehaviour:
    """Behaviour every arena store must show."""

    @pytest.fixture
    def make_arena_store(self):
        raise NotImplementedError("a backend's subclass provides make_arena_store")

    @pytest.fixture
    def arena(self, make_arena_store):
        return make_arena_store()

    # -- bot accounts -------------------------------------------------------------------------------

    def test_a_registered_bot_is_found_by_name_and_by_its_token_hash(self, arena):
        assert arena.register_bot("Alpha", profile("Alpha"), "h-alpha") is True
        assert arena.bot("Alpha") == {**profile("Alpha"), "token_hash": "h-alpha"}
        assert arena.bot_of_token("h-alpha") == "Alpha"
        assert arena.bot("Beta") is None and arena.bot_of_token("h-beta") is None

    def test_a_name_is_taken_in_any_case_and_a_refusal_writes_nothing(self, arena):
        arena.register_bot("Alpha", profile("Alpha"), "h-1")
        assert arena.register_bot("ALPHA", profile("ALPHA"), "h-2") is False
        assert arena.register_bot("Alpha", profile("Alpha"), "h-3") is False
        assert arena.bot("ALPHA") is None
        assert arena.bot_of_token("h-2") is None and arena.bot_of_token("h-3") is None
        assert arena.bot("Alpha")["token_hash"] == "h-1"

    def test_a_bots_name_is_answered_as_registered_whatever_the_case_asked(self, arena):
        arena.register_bot("Alpha", profile("Alpha"), "h-1")
        assert arena.bot_name("Alpha") == "Alpha"
        assert arena.bot_name("aLPHA") == "Alpha"
        assert arena.bot_name("gamma") is None

    def test_an_update_merges_into_the_profile_and_answers_it(self, arena):
        arena.register_bot("alpha", profile("alpha"), "h-1")
        updated = arena.update_bot("alpha", {"accepts_matches": True})
        assert updated == {**profile("alpha", accepts_matches=True), "token_hash": "h-1"}
        assert arena.bot("alpha") == updated
        assert arena.update_bot("nobody", {"accepts_matches": True}) is None

    def test_a_bots_token_hash_is_replaced_once_and_a_revoked_one_finds_no_bot(self, arena):
        arena.register_bot("alpha", profile("alpha"), "h-1")
        assert arena.replace_bot_token("alpha", "h-1", "h-2", usable=True) is True
        assert arena.bot_of_token("h-1") is None and arena.bot_of_token("h-2") == "alpha"
        assert arena.bot("alpha") == {**profile("alpha"), "token_hash": "h-2"}
        # the old hash again, or another bot's name: nothing written
        assert arena.replace_bot_token("alpha", "h-1", "h-3", usable=True) is False
        assert arena.replace_bot_token("beta", "h-2", "h-3", usable=True) is False
        assert arena.bot_of_token("h-3") is None and arena.bot("alpha")["token_hash"] == "h-2"
        # revoked: the account keeps a hash that no token finds
        assert arena.replace_bot_token("alpha", "h-2", "h-4", usable=False) is True
        assert arena.bot_of_token("h-2") is None and arena.bot_of_token("h-4") is None
        assert arena.bot("alpha")["token_hash"] == "h-4"

    def test_what_a_read_answers_is_a_copy(self, arena):
        arena.register_bot("alpha", profile("alpha"), "h-1")
        arena.bot("alpha")["description"] = "changed by a reader"
        assert arena.bot("alpha")["description"] == ""

    def test_a_bots_games_are_counted_and_listed_newest_first_each_once(self, arena):
        arena.seat_bot("alpha", "games", "g1", NOW)
        arena.seat_bot("alpha", "games", "g2", NOW + 2)
        arena.seat_bot("alpha", "games", "g3", NOW + 1)
        arena.seat_bot("alpha", "games", "g1", NOW + 9)  # seated again: its first time stays
        arena.seat_bot("alpha", "matches", "m1", NOW)
        assert arena.seated("alpha", "games") == (3, ["g2", "g3", "g1"])
        assert arena.seated("alpha", "games", limit=1) == (3, ["g2"])
        assert arena.seated("alpha", "matches") == (1, ["m1"])
        assert arena.seated("beta", "games") == (0, [])

    def test_bot_names_are_paged_in_byte_order_after_a_cursor(self, arena):
        for name in ("delta", "Alpha", "beta"):
            arena.register_bot(name, profile(name), f"h-{name}")
        assert arena.bot_names(None, 10) == ["Alpha", "beta", "delta"]
        assert arena.bot_names(None, 2) == ["Alpha", "beta"]
        assert arena.bot_names("beta", 2) == ["delta"] and arena.bot_names("delta", 2) == []

    def test_when_a_bot_was_last_seen_and_last_seated(self, arena):
        assert arena.last_seen(["alpha"]) == {"alpha": None} and arena.last_seated(["alpha"]) == {"alpha": None}
        arena.saw_bot("alpha", NOW)
        arena.saw_bot("alpha", NOW + 5)
        arena.seat_bot("alpha", "games", "g1", NOW + 1)
        arena.seat_bot("alpha", "games", "g2", NOW + 3)
        arena.seat_bot("alpha", "matches", "m1", NOW + 9)  # a match is no game
        assert arena.last_seen(["alpha", "beta"]) == {"alpha": NOW + 5, "beta": None}
        assert arena.last_seated(["alpha"]) == {"alpha": NOW + 3}

    def test_a_bots_games_in_play_are_paged_by_id_until_they_leave_play(self, arena):
        for game_id in ("g3", "g1", "g2"):
            arena.seat_bot("alpha", "games", game_id, NOW)
        arena.seat_bot("alpha", "matches", "m1", NOW)
        assert arena.games_in_play("alpha", None, 10) == ["g1", "g2", "g3"]
        assert arena.games_in_play("alpha", "g1", 1) == ["g2"]
        arena.game_left_play("alpha", "g2")
        assert arena.games_in_play("alpha", None, 10) == ["g1", "g3"] and arena.games_in_play("beta", None, 10) == []
        # the games it was ever seated in stay counted
        assert arena.seated("alpha", "games") == (3, ["g3", "g2", "g1"])

    # -- each bot's stream ------------------------------------------------------------------------

    def test_a_bots_stream_is_read_in_order_from_the_start_or_after_an_id(self, arena):
        ids = [arena.notify("alpha", "your_turn", {"game_id": "g1", "version": v}) for v in (1, 2, 3)]
        assert len(set(ids)) == 3
        read = arena.read_stream("alpha", "0")
        assert read == [(ids[0], "your_turn", {"game_id": "g1", "version": 1}),
                        (ids[1], "your_turn", {"game_id": "g1", "version": 2}),
                        (ids[2], "your_turn", {"game_id": "g1", "version": 3})]
        assert [entry[0] for entry in arena.read_stream("alpha", ids[0])] == ids[1:]
        assert arena.read_stream("alpha", ids[2]) == []
        assert [entry[0] for entry in arena.read_stream("alpha", "0", count=2)] == ids[:2]

    def test_stream_ids_are_ms_and_sequence_and_grow(self, arena):
        ids = [arena.notify("alpha", "game_started", {"n": n}) for n in range(5)]
        parsed = [tuple(int(part) for part in entry_id.split("-")) for entry_id in ids]
        assert parsed == sorted(parsed) and len(set(parsed)) == 5

    def test_each_bot_has_a_stream_of_its_own(self, arena):
        arena.notify("alpha", "a", {"to": "alpha"})
        assert arena.read_stream("beta", "0") == []

    def test_a_read_that_waits_gets_the_entry_added_meanwhile(self, arena):
        timer = threading.Timer(0.05, lambda: arena.notify("alpha", "your_turn", {"game_id": "g1"}))
        timer.start()
        try:
            read = arena.read_stream("alpha", "0", wait_s=5)
        finally:
            timer.join()
        assert [(kind, data) for _, kind, data in read] == [("your_turn", {"game_id": "g1"})]

    def test_a_read_that_waits_for_nothing_answers_nothing_once_the_wait_is_over(self, arena):
        started = time.monotonic()
        assert arena.read_stream("alpha", "0", wait_s=0.05) == []
        assert time.monotonic() - started >= 0.04

    def test_a_stream_keeps_at_least_its_newest_entries(self, make_arena_store):
        arena = make_arena_store(stream_max_len=10)
        ids = [arena.notify("alpha", "n", {"n": n}) for n in range(30)]
        kept = [entry[0] for entry in arena.read_stream("alpha", "0", count=100)]
        assert kept[-10:] == ids[-10:] and kept == ids[-len(kept):]

    # -- games and matches ------------------------------------------------------------------------

    def test_a_games_mark_is_read_alone_or_among_many(self, arena):
        arena.mark_game("g1", {"match_id": "m1", "board": 0, "table": 1})
        arena.mark_game("g2", {"rated": True})
        assert arena.game_of("g1") == {"match_id": "m1", "board": 0, "table": 1}
        assert arena.game_of("g3") is None
        assert arena.games_of(["g1", "g3", "g2"]) == {"g1": {"match_id": "m1", "board": 0, "table": 1},
                                                      "g2": {"rated": True}}
        assert arena.games_of([]) == {}

    def test_the_finished_games_of_a_match_are_kept_by_index(self, arena):
        arena.mark_finished("m1", 0, [12, 0])
        arena.mark_finished("m1", 3, [0, 25])
        assert arena.finished("m1") == {0: [12, 0], 3: [0, 25]}
        assert arena.finished("m2") == {}
        assert arena.finished("m1", among=[3, 1]) == {3: [0, 25]}
        assert arena.finished("m1", among=[]) == {}

    def test_matches_recorded_as_over(self, arena):
        arena.mark_match_over("m1")
        assert arena.match_over("m1") is True and arena.match_over("m2") is False
        assert arena.matches_over(["m1", "m2"]) == {"m1"}
        assert arena.matches_over([]) == set()

    def test_the_first_seed_saved_for_a_match_is_its_seed_with_its_tokens(self, arena):
        first, second = bytes(range(32)), bytes(32)
        assert arena.save_match_seed("m1", first, NOW, {0: "h-person"}) == first
        assert arena.save_match_seed("m1", second, NOW + 1, {0: "h-other", 1: "h-more"}) == first
        assert arena.match_seed("m1") == first
        assert arena.match_seat_tokens("m1") == {0: "h-person"}
        assert arena.match_seed("m2") is None and arena.match_seat_tokens("m2") == {}

    def test_matches_are_listed_newest_first(self, arena):
        for i, match_id in enumerate(("m1", "m3", "m2")):
            arena.save_match_seed(match_id, bytes(32), NOW + i)
        assert arena.matches() == ["m2", "m3", "m1"]
        assert arena.matches(limit=2) == ["m2", "m3"]

    def test_a_callers_matches_in_play_are_capped(self, arena):
        assert arena.claim_match("m1", "bot:a", 10, 2, NOW) == 1
        assert arena.claim_match("m2", "bot:a", 10, 2, NOW) == 1
        assert arena.claim_match("m3", "bot:a", 10, 2, NOW) == -1
        assert arena.claim_match("m3", "bot:b", 10, 2, NOW) == 1

    def test_a_bots_match_counts_against_its_address_too_and_a_refusal_counts_nothing(self, arena):
        assert arena.claim_match("m1", ("bot:a", "addr:1"), 10, 2, NOW) == 1
        assert arena.claim_match("m2", ("bot:b", "addr:1"), 10, 2, NOW) == 1
        assert arena.claim_match("m3", ("bot:c", "addr:1"), 10, 2, NOW) == -3  # the address's cap
        assert arena.claim_match("m3", "addr:1", 10, 2, NOW) == -1
        assert arena.claim_match("m3", ("bot:a", "addr:2"), 10, 2, NOW) == 1
        assert arena.claim_match("m4", ("bot:a", "addr:3"), 10, 2, NOW) == -1  # the bot's own cap
        # bot:c was refused: none of its places is held; released, a match leaves every count
        assert arena.claim_match("m5", ("bot:c", "addr:4"), 10, 1, NOW) == 1
        arena.release_match("m5", ("bot:c", "addr:4"))
        assert arena.claim_match("m6", ("bot:c", "addr:4"), 10, 1, NOW) == 1

    def test_the_servers_matches_in_play_are_capped_and_a_refusal_counts_nothing(self, arena):
        assert arena.claim_match("m1", "bot:a", 2, 5, NOW) == 1
        assert arena.claim_match("m2", "bot:b", 2, 5, NOW) == 1
        assert arena.claim_match("m3", "bot:c", 2, 5, NOW) == -2
        assert arena.claim_match("m4", "bot:c", 0, 1, NOW) == 1  # the refused m3 was not counted for bot:c

    def test_a_match_the_caller_counted_already_is_counted_again_whatever_the_caps(self, arena):
        assert arena.claim_match("m1", "bot:a", 1, 1, NOW) == 1
        assert arena.claim_match("m1", "bot:a", 1, 1, NOW + 1) == 1

    def test_a_match_over_or_released_leaves_the_counts(self, arena):
        arena.claim_match("m1", "bot:a", 1, 1, NOW)
        arena.release_match("m1", "bot:a")
        assert arena.claim_match("m2", "bot:b", 1, 1, NOW) == 1
        arena.mark_match_over("m2")
        assert arena.claim_match("m3", "bot:b", 1, 1, NOW) == 1

    # -- ratings ----------------------------------------------------------------------------------

    def test_a_rating_period_is_applied_once_over_the_ratings_it_reads(self, arena):
        seen = []

        def update(current):
            seen.append(current)
            return {"alpha": {"rating": 1500 + 10 * len(seen)}, "beta": {"rating": 1490}}

        assert arena.apply_period("gin-rami", "match:m1", update) is True
        assert arena.apply_period("gin-rami", "match:m1", update) is False
        assert seen == [{}]
        assert arena.ratings("gin-rami") == {"alpha": {"rating": 1510}, "beta": {"rating": 1490}}
        assert arena.rating("gin-rami", "beta") == {"rating": 1490}
        assert arena.rating("three-hand", "beta") is None and arena.ratings("three-hand") == {}

        def second(current):
            seen.append(current)
            return {"beta": {"rating": 1480}}

        assert arena.apply_period("gin-rami", "match:m2", second) is True
        assert seen[-1] == {"alpha": {"rating": 1510}, "beta": {"rating": 1490}}
        assert arena.ratings("gin-rami") == {"alpha": {"rating": 1510}, "beta": {"rating": 1480}}

    def test_the_ratings_of_some_names_are_those_rated(self, arena):
        arena.apply_period("gin-rami", "p1", lambda current: {"alpha": {"rating": 1600.0, "deviation": 200.0,
                                                                        "volatility": 0.06, "games": 1}})
        assert arena.ratings_of("gin-rami", ["alpha", "beta"]) == {
            "alpha": {"rating": 1600.0, "deviation": 200.0, "volatility": 0.06, "games": 1}}
        assert arena.ratings_of("three-hand", ["alpha"]) == {} and arena.ratings_of("gin-rami", []) == {}

    # -- challenges -------------------------------------------------------------------------------

    def test_a_new_challenge_is_stored_once_under_its_id(self, arena):
        c = challenge("c1")
        assert arena.add_challenge(c, per_bot=5, per_challenger=5, now_ms=NOW) == 1
        assert arena.challenge("c1") == c
        assert arena.add_challenge({**c, "variant": "three-hand"}, per_bot=5, per_challenger=5, now_ms=NOW) == 0
        assert arena.challenge("c1") == c
        assert arena.challenge("c2") is None

    def test_the_challenged_bots_pending_challenges_are_capped(self, arena):
        assert arena.add_challenge(challenge("c1", by="bot:a"), per_bot=2, per_challenger=5, now_ms=NOW) == 1
        assert arena.add_challenge(challenge("c2", by="bot:b"), per_bot=2, per_challenger=5, now_ms=NOW) == 1
        assert arena.add_challenge(challenge("c3", by="bot:c"), per_bot=2, per_challenger=5, now_ms=NOW) == -1
        assert arena.challenge("c3") is None

    def test_a_challengers_pending_challenges_are_capped(self, arena):
        assert arena.add_challenge(challenge("c1", to="b1"), per_bot=5, per_challenger=1, now_ms=NOW) == 1
        assert arena.add_challenge(challenge("c2", to="b2"), per_bot=5, per_challenger=1, now_ms=NOW) == -2
        assert arena.add_challenge(challenge("c2", to="b2"), per_bot=5, per_challenger=0, now_ms=NOW) == 1

    def test_an_expired_challenge_no_longer_counts_as_pending(self, arena):
        arena.add_challenge(challenge("c1", expires=NOW + 10), per_bot=1, per_challenger=1, now_ms=NOW)
        assert arena.add_challenge(challenge("c2"), per_bot=1, per_challenger=1, now_ms=NOW + 9) == -1
        assert arena.add_challenge(challenge("c2"), per_bot=1, per_challenger=1, now_ms=NOW + 10) == 1

    def test_the_pending_challenges_to_and_from_a_bot_are_those_not_expired(self, arena):
        arena.add_challenge(challenge("c1", to="alpha", by="bot:beta", expires=NOW + 20), per_bot=0,
                            per_challenger=0, now_ms=NOW)
        arena.add_challenge(challenge("c2", to="alpha", by="addr:x", expires=NOW + 10), per_bot=0,
                            per_challenger=0, now_ms=NOW)
        arena.add_challenge(challenge("c3", to="beta", by="bot:alpha", expires=NOW + 30), per_bot=0,
                            per_challenger=0, now_ms=NOW)
        # soonest to expire first
        assert arena.pending_challenge_ids("alpha", "bot:alpha", NOW) == (["c2", "c1"], ["c3"])
        assert arena.pending_challenge_ids("alpha", "bot:alpha", NOW + 10) == (["c1"], ["c3"])
        arena.decide_challenge("c3", "withdrawn", {})
        assert arena.pending_challenge_ids("alpha", "bot:alpha", NOW) == (["c2", "c1"], [])

    def test_a_challenge_moves_once_from_pending(self, arena):
        arena.add_challenge(challenge("c1"), per_bot=5, per_challenger=5, now_ms=NOW)
        decided = arena.decide_challenge("c1", "declined", {"answered_with": "k"})
        assert decided == {**challenge("c1"), "status": "declined", "answered_with": "k"}
        assert arena.challenge("c1") == decided
        assert arena.decide_challenge("c1", "accepted", {}) is None
        assert arena.decide_challenge("c-none", "accepted", {}) is None

    def test_an_answered_challenge_leaves_the_pending_counts(self, arena):
        arena.add_challenge(challenge("c1"), per_bot=1, per_challenger=1, now_ms=NOW)
        arena.decide_challenge("c1", "withdrawn", {})
        assert arena.add_challenge(challenge("c2"), per_bot=1, per_challenger=1, now_ms=NOW) == 1

    def test_a_challenge_being_accepted_still_counts_as_pending(self, arena):
        arena.add_challenge(challenge("c1"), per_bot=1, per_challenger=1, now_ms=NOW)
        arena.decide_challenge("c1", "accepting", {"accepting_since": NOW})
        assert arena.add_challenge(challenge("c2"), per_bot=1, per_challenger=1, now_ms=NOW) == -1

    def test_a_move_asks_may_and_removes_what_extra_sets_to_none(self, arena):
        arena.add_challenge(challenge("c1"), per_bot=5, per_challenger=5, now_ms=NOW)
        arena.decide_challenge("c1", "accepting", {"accepting_since": NOW})
        assert arena.decide_challenge("c1", "accepted", {"game_id": "g1"}) is None  # not pending
        accepted = arena.decide_challenge("c1", "accepted", {"game_id": "g1", "accepting_since": None},
                                          may=lambda c: c["status"] == "accepting")
        assert accepted["status"] == "accepted" and accepted["game_id"] == "g1"
        assert "accepting_since" not in accepted and "accepting_since" not in arena.challenge("c1")
        assert arena.decide_challenge("c1", "declined", {}, may=lambda c: False) is None

    def test_a_saved_challenge_is_written_over_the_one_kept(self, arena):
        arena.add_challenge(challenge("c1"), per_bot=5, per_challenger=5, now_ms=NOW)
        arena.save_challenge("c1", {**challenge("c1"), "note": "rewritten"})
        assert arena.challenge("c1")["note"] == "rewritten"
        arena.save_challenge("c2", challenge("c2"))
        assert arena.challenge("c2") == challenge("c2")
