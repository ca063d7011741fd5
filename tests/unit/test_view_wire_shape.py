"""A view as rules.views renders it is already in its wire shape, so the API sends it as it is.

ViewSchema (the view's wire schema, matching openapi.yaml) would dump every view of whole games,
for every viewer, to the same keys, in the same order, with the same values.
"""

from __future__ import annotations

import json

import pytest
from support.store_behaviour import played_game

from schemas.views import ViewSchema
from service.rules import game, views


@pytest.mark.parametrize("variant, seed", [("gin-rami", 21), ("three-hand", 10)])
def test_every_view_of_a_whole_game_is_what_its_schema_dumps(variant, seed):
    schema = ViewSchema()
    state, compared = None, 0
    for batch in played_game(variant, seed=seed):
        for event in batch:
            state = game.evolve(state, event)
        for viewer in (None, *range(state.nseats)):
            view = {"game_id": "g" * 16, **views.view_state(state, viewer)}
            expected = schema.dump(view)
            assert json.loads(json.dumps(view)) == expected and list(view) == list(expected)
            compared += 1
    assert state.status == "over" and compared > 1000
