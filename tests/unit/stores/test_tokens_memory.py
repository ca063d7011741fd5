"""The token store behaviour suite on the in-memory backend."""

import pytest
from support.token_store_behaviour import TokenStoreBehaviour

from service.store.tokens import InMemoryTokenStore


class TestInMemoryTokenStore(TokenStoreBehaviour):
    @pytest.fixture
    def make_tokens(self):
        return lambda: InMemoryTokenStore("gbt-memory")
