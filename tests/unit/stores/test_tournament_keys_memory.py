"""The behaviour suite of the tournaments' keys on the in-memory backend."""

import pytest
from support.tournament_keys_behaviour import TournamentKeysBehaviour

from service.store.tournaments import InMemoryTournaments


class TestInMemoryTournaments(TournamentKeysBehaviour):
    @pytest.fixture
    def make_keys(self):
        return InMemoryTournaments
