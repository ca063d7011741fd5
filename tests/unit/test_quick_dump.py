"""quick_dump(schema) answers exactly what schema.dump does: on every view of whole games, and on odd values.

A view as rules.views renders it is what ViewSchema dumps, so the API sends views as they are.
"""

from __future__ import annotations

import json

import pytest
from marshmallow import Schema, fields, post_dump
from store_contract import played_game

from schemas.common import quick_dump
from schemas.views import ViewSchema
from service.rules import game, views


@pytest.mark.parametrize("variant, seed", [("gin-rami", 21), ("three-hand", 10)])
def test_every_view_of_a_whole_game_dumps_as_marshmallow_dumps_it(variant, seed):
    schema = ViewSchema()
    quick = quick_dump(schema)
    state, compared = None, 0
    for batch in played_game(variant, seed=seed):
        for event in batch:
            state = game.evolve(state, event)
        for viewer in (None, *range(state.nseats)):
            view = {"game_id": "g" * 16, **views.view_state(state, viewer)}
            expected = schema.dump(view)
            got = quick(view)
            assert got == expected and list(got) == list(expected)
            # the view is already in its wire shape: the API sends it without dumping it
            assert json.loads(json.dumps(view)) == expected and list(view) == list(expected)
            compared += 1
    assert state.status == "over" and compared > 1000


class Inner(Schema):
    n = fields.Integer()


class Odd(Schema):
    text = fields.String()
    number = fields.Integer()
    flag = fields.Boolean()
    numbers = fields.List(fields.Integer(), allow_none=True)
    inner = fields.Nested(Inner, allow_none=True)
    inners = fields.List(fields.Nested(Inner))
    mapping = fields.Dict(keys=fields.String(), values=fields.Integer())
    raw = fields.Raw()
    renamed = fields.String(data_key="shown", attribute="hidden")


@pytest.mark.parametrize("obj", [
    {"text": "a", "number": 1, "flag": True, "numbers": [1, 2], "inner": {"n": 3}, "inners": [{"n": 4}],
     "mapping": {"k": 5}, "raw": {"any": ["thing"]}, "hidden": "h"},
    # values of other types than the wire's go through marshmallow's own conversions
    {"text": 7, "number": True, "flag": 1, "numbers": ("3", 4.0), "inner": {"n": "6", "extra": 1},
     "inners": [{"n": False}], "mapping": {"k": "8"}, "raw": (1, 2), "hidden": 9, "unknown": "dropped"},
    {"text": None, "number": None, "numbers": None, "inner": None, "inners": []},
    {},
])
def test_odd_values_dump_as_marshmallow_dumps_them(obj):
    got, expected = quick_dump(Odd())(obj), Odd().dump(obj)
    assert got == expected and list(got) == list(expected)
    assert all(type(got[k]) is type(expected[k]) for k in expected)


def test_a_schema_with_hooks_or_dump_defaults_is_dumped_by_marshmallow_itself():
    class Hooked(Schema):
        n = fields.Integer()

        @post_dump
        def double(self, data, **kwargs):
            return {"n": data["n"] * 2}

    class Defaulted(Schema):
        n = fields.Integer(dump_default=5)

    assert quick_dump(Hooked())({"n": 2}) == {"n": 4}
    assert quick_dump(Defaulted())({}) == {"n": 5}
