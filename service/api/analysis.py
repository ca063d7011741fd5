"""Card maths as a service: the least-deadwood arrangement of some cards."""

from __future__ import annotations

from flask import Blueprint

from schemas.analysis import MeldsRequestSchema, MeldsResponseSchema
from service.api.http import json_response, load_body
from service.rules import cards, melds

bp = Blueprint("analysis", __name__)

# the default knock limit (RULES.md §4): the calculator knows no game, so it uses the standard rule
KNOCK_LIMIT = 10

# built once per process (building a schema deep-copies its fields)
_MELDS_REQUEST = MeldsRequestSchema()
_MELDS_RESPONSE = MeldsResponseSchema()


@bp.post("/analysis/melds")
def analyse_melds():
    """Melds, deadwood and, for 11 cards, what each discard would leave."""
    body, _ = load_body(_MELDS_REQUEST)
    hand = body["cards"]
    best = melds.best_arrangement(hand)
    out = {
        "deadwood": best.deadwood,
        "melds": [[cards.code(c) for c in m] for m in best.melds],
        "deadwood_cards": [cards.code(c) for c in best.deadwood_cards],
    }
    if len(hand) == 11:
        options = melds.knock_discards(hand, KNOCK_LIMIT)
        out["deadwood_after_discard"] = melds.deadwood_after_discard(hand)
        out["knock_discards"] = [{"card": cards.code(c), "deadwood": d} for c, d in options]
        out["gin_discards"] = [cards.code(c) for c, d in options if d == 0]
    return json_response(_MELDS_RESPONSE.dump(out))
