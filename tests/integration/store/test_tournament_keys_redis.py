"""The behaviour suite of the tournaments' keys on Redis."""

import pytest
from support.tournament_keys_behaviour import TournamentKeysBehaviour

from service.store.tournaments import RedisTournaments


class TestRedisTournaments(TournamentKeysBehaviour):
    @pytest.fixture
    def make_keys(self, redis_conn, key_prefix):
        return lambda: RedisTournaments(redis_conn, key_prefix)
