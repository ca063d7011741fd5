"""The behaviour suite of the analyses' records on the in-memory backend."""

import pytest
from support.analyses_behaviour import AnalysesBehaviour

from service.store.analyses import InMemoryAnalyses


class TestInMemoryAnalyses(AnalysesBehaviour):
    @pytest.fixture
    def analyses(self):
        return InMemoryAnalyses("t")
