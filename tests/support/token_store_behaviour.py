"""How every token store behaves (TokenStore on Redis, InMemoryTokenStore): an abstract test
class, subclassed once per backend.

A subclass provides the fixture ``make_tokens`` -> ``make()``, a fresh, empty store under a key
prefix of its own (``prefix``).
"""

from __future__ import annotations

import pytest

from service.store.tokens import hash_token, issue_token


class TokenStoreBehaviour:
    """Behaviour every store of seat token hashes must show."""

    @pytest.fixture
    def make_tokens(self):
        raise NotImplementedError("a backend's subclass provides make_tokens")

    @pytest.fixture
    def tokens(self, make_tokens):
        return make_tokens()

    def test_the_tokens_saved_with_a_game_find_their_seats(self, tokens):
        ann, bob = issue_token(), issue_token()
        tokens.save("g1", {0: ann, 2: bob})
        assert tokens.seat_of("g1", ann) == 0
        assert tokens.seat_of("g1", bob) == 2

    def test_a_token_of_no_seat_finds_none(self, tokens):
        tokens.save("g1", {0: issue_token()})
        assert tokens.seat_of("g1", issue_token()) is None
        assert tokens.seat_of("g-none", issue_token()) is None

    def test_a_seat_token_finds_its_seat_in_its_own_game_only(self, tokens):
        ann = issue_token()
        tokens.save("g1", {0: ann})
        tokens.save("g2", {0: issue_token()})
        assert tokens.seat_of("g2", ann) is None

    def test_a_claimed_seat_is_found_beside_the_seats_of_the_creation(self, tokens):
        ann, bob = issue_token(), issue_token()
        tokens.save("g1", {0: ann})
        assert tokens.seat_of("g1", bob) is None  # asked before the claim: not remembered as a miss
        tokens.claim("g1", 1, bob)
        assert tokens.seat_of("g1", bob) == 1
        assert tokens.seat_of("g1", ann) == 0

    def test_a_game_created_without_person_seats_saves_nothing(self, tokens):
        tokens.save("g1", {})
        assert tokens.seat_of("g1", issue_token()) is None

    def test_a_seat_asked_again_is_found_again(self, tokens):
        ann = issue_token()
        tokens.save("g1", {1: ann})
        assert [tokens.seat_of("g1", ann) for _ in range(3)] == [1, 1, 1]

    def test_a_seat_hash_saved_as_a_hash_is_found_by_its_token(self, tokens):
        # the arena seats a bot account with the bot's own token hash (save_hashes)
        bot, ann = issue_token(), issue_token()
        tokens.save("g1", {0: ann})
        tokens.save_hashes("g1", {1: hash_token(bot)})
        assert (tokens.seat_of("g1", bot), tokens.seat_of("g1", ann)) == (1, 0)
        tokens.save_hashes("g1", {})  # nothing to write: nothing changes
        assert tokens.seat_of("g1", bot) == 1

    def test_a_replaced_hash_moves_its_seat_to_the_new_token_at_once(self, tokens):
        old, new, ann = issue_token(), issue_token(), issue_token()
        tokens.save("g1", {0: ann})
        tokens.save_hashes("g1", {1: hash_token(old)})
        assert tokens.seat_of("g1", old) == 1  # remembered by a store that remembers
        tokens.replace_hash("g1", hash_token(old), hash_token(new))
        assert (tokens.seat_of("g1", old), tokens.seat_of("g1", new), tokens.seat_of("g1", ann)) == (None, 1, 0)
        tokens.replace_hash("g-none", hash_token(new), hash_token(old))  # no such game: nothing written
        assert tokens.seat_of("g-none", old) is None

    def test_the_key_of_a_games_hashes_is_in_the_games_hash_slot(self, tokens):
        assert tokens.key("g1") == f"{tokens.prefix}:{{g1}}:tokens"
