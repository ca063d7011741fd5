"""Wire schemas of the meld calculator (POST /analysis/melds)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from schemas.common import CardCode, StrictSchema, unique_cards
from service.rules.melds import MAX_HAND_CARDS


class MeldsRequestSchema(StrictSchema):
    """1 to 11 (MAX_HAND_CARDS) distinct card codes."""

    cards = fields.List(CardCode(), required=True, validate=[validate.Length(1, MAX_HAND_CARDS), unique_cards])


class KnockDiscardSchema(Schema):
    card = fields.String(required=True)
    deadwood = fields.Integer(required=True)


class MeldsResponseSchema(Schema):
    """The least-deadwood arrangement, and for 11 cards what each discard leaves."""

    deadwood = fields.Integer(required=True)
    melds = fields.List(fields.List(fields.String()), required=True)
    deadwood_cards = fields.List(fields.String(), required=True)
    deadwood_after_discard = fields.Integer()
    knock_discards = fields.List(fields.Nested(KnockDiscardSchema))
    gin_discards = fields.List(fields.String())
