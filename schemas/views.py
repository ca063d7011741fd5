"""Wire schemas of game views: what ``service.rules.views.view_state`` shows a viewer, plus the game id."""

from __future__ import annotations

from marshmallow import Schema, fields

from schemas.games import EndSchema, SeatInfoSchema


class PlayerSchema(Schema):
    name = fields.String(required=True)
    bot = fields.String()
    budget_ms = fields.Integer()
    #: the bot account that plays the seat (the arena seats it)
    account = fields.String()
    #: the match the game is a board of
    match = fields.String()


class CutSchema(Schema):
    purpose = fields.String(required=True)
    round = fields.Integer(required=True)
    seats = fields.List(fields.Integer(), required=True)
    cards = fields.List(fields.String(), required=True)


class AdviceEntrySchema(Schema):
    hand_no = fields.Integer(required=True)
    advisor = fields.Integer(required=True)
    captain = fields.Integer(required=True)
    text = fields.String(required=True)


def _cards(**kw):
    return fields.List(fields.String(), **kw)


def _card_lists(**kw):
    return fields.List(fields.List(fields.String()), **kw)


class HollywoodGameSchema(Schema):
    """One of the three games of a Hollywood match."""

    game = fields.Integer(required=True)
    hand_points = fields.List(fields.Integer(), required=True)
    hands_won = fields.List(fields.Integer(), required=True)
    scores = fields.List(fields.Integer(), required=True)
    over = fields.Boolean(required=True)
    winner = fields.Integer(required=True, allow_none=True)
    bonuses = fields.Dict(keys=fields.String(), required=True, allow_none=True)


class HollywoodSchema(Schema):
    """The three games of a Hollywood match, every hand each seat won, and where its next win goes."""

    games = fields.List(fields.Nested(HollywoodGameSchema), required=True)
    hands_won = fields.List(fields.Integer(), required=True)
    next_win_enters = fields.List(fields.List(fields.Integer()), required=True)


class ViewSchema(Schema):
    """One viewer's view of a game (the engine decides what each viewer may see)."""

    game_id = fields.String(required=True)
    variant = fields.String(required=True)
    options = fields.Dict(keys=fields.String(), required=True)
    #: the named rule set the options came from (RULES.md §5 Presets), or null
    rules = fields.String(required=True, allow_none=True)
    #: the knock limit of the hand in play (with Oklahoma, its upcard's)
    knock_limit = fields.Integer(required=True, allow_none=True)
    #: the end-of-game bonuses' score sheet, or null
    bonuses = fields.Dict(keys=fields.String(), required=True, allow_none=True)
    #: with Hollywood, the three games (RULES.md §5 Hollywood), or null
    hollywood = fields.Nested("HollywoodSchema", required=True, allow_none=True)
    rules_version = fields.String(required=True)
    status = fields.String(required=True)
    version = fields.Integer(required=True)
    players = fields.List(fields.Nested(PlayerSchema, allow_none=True), required=True)
    scores = fields.List(fields.Integer(), required=True)
    hand_no = fields.Integer(required=True)
    phase = fields.String(required=True)
    to_act = fields.List(fields.Integer(), required=True)
    roles = fields.Dict(keys=fields.String(), values=fields.Integer(), allow_none=True, required=True)
    dealer = fields.Integer(allow_none=True, required=True)
    non_dealer = fields.Integer(allow_none=True, required=True)
    winner = fields.Integer(allow_none=True, required=True)
    end = fields.Nested(EndSchema, allow_none=True, required=True)
    commitment = fields.String(required=True)
    randomly_dealt = fields.Boolean(required=True)
    decks_given = fields.Boolean(required=True)
    #: the program an imported game was dealt and played with ("openspiel"), or null
    imported_from = fields.String(required=True, allow_none=True)
    fairness = fields.Integer(required=True)
    client_seeds = fields.List(fields.String(allow_none=True), required=True)
    awaiting_client_seeds = fields.List(fields.Integer(), required=True)
    private_seats = fields.List(fields.Integer(), required=True)
    viewer = fields.Integer(allow_none=True, required=True)
    viewer_role = fields.String(required=True)
    hand_owner = fields.Integer(allow_none=True, required=True)
    hand = _cards(allow_none=True, required=True)
    drawn_card = fields.String(allow_none=True, required=True)
    hand_sizes = fields.List(fields.Integer(), allow_none=True, required=True)
    known_cards = _card_lists(allow_none=True, required=True)
    discard_pile = _cards(required=True)
    discard_top = fields.String(allow_none=True, required=True)
    taken_card = fields.String(allow_none=True, required=True)
    stock_size = fields.Integer(required=True)
    turn = fields.Integer(required=True)
    upcard_passes = fields.Integer(required=True)
    cuts = fields.List(fields.Nested(CutSchema), required=True)
    # a scored hand and a drawn hand have different fields: both are passed on as the engine wrote them
    last_hand = fields.Raw(allow_none=True, required=True)
    #: the latest results only (HAND_RESULTS_IN_VIEW), oldest first
    hand_results = fields.List(fields.Raw(), required=True)
    #: the hands finished so far, and the index of the first result ``hand_results`` holds
    hand_results_total = fields.Integer(required=True)
    hand_results_from = fields.Integer(required=True)
    advice = fields.List(fields.Nested(AdviceEntrySchema), required=True)
    legal_moves = fields.List(fields.Raw(), required=True)
    seed = fields.String(allow_none=True, required=True)
    all_hands = _card_lists(allow_none=True, required=True)
    stock = _cards(allow_none=True, required=True)
    decks = _card_lists(allow_none=True, required=True)
    turn_deadline_ms = fields.Integer(allow_none=True, required=True)


class HandResultsPageSchema(Schema):
    """GET /games/{id}/hand-results answer: a page of the results, as the caller's view shows them."""

    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    total = fields.Integer(required=True)
    offset = fields.Integer(required=True)
    hand_results = fields.List(fields.Raw(), required=True)


class CreatedGameSchema(Schema):
    """POST /games answer."""

    game_id = fields.String(required=True)
    commitment = fields.String(required=True)
    randomly_dealt = fields.Boolean(required=True)
    seats = fields.List(fields.Nested(SeatInfoSchema), required=True)
    view = fields.Nested(ViewSchema, required=True)


class SeatClaimedSchema(Schema):
    """POST /games/{id}/seats/{seat} answer."""

    seat = fields.Integer(required=True)
    token = fields.String(required=True)
    view = fields.Nested(ViewSchema, required=True)
