"""Wire schemas of games: creation, seats, moves, advice, listings, events, audits.

Enums and bounds come from the rules engine (variants, option bounds, statuses, move types, meld
sizes, the advice limit), so that they are written once; tests/contract/test_spec_agrees_with_engine.py
checks that openapi.yaml states the same.
"""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from schemas.common import (
    MAX_VERSION,
    CardCode,
    Cursor,
    Name,
    QueryInteger,
    QuerySchema,
    StrictBoolean,
    StrictInteger,
    StrictSchema,
    unique_cards,
    visible_text,
)
from service.rules.commands import MAX_ADVICE_LENGTH, MOVE_TYPES
from service.rules.melds import MAX_HAND_CARDS, MAX_MELDS, MIN_MELD_CARDS
from service.rules.names import BOT_POLICY_NAMES, STATUSES
from service.rules.variants import (
    BOOL_OPTIONS,
    GIN_RAMI,
    INT_OPTION_BOUNDS,
    NULLABLE_OPTIONS,
    ROLE_NAMES,
    THREE_HAND,
    VARIANT_NAMES,
    VARIANTS,
)

SEATS_PER_VARIANT = {name: variant.seats for name, variant in VARIANTS.items()}
MAX_SEATS = max(SEATS_PER_VARIANT.values())
MIN_SEATS = min(SEATS_PER_VARIANT.values())
MAX_DECKS = 100


def _option_field(name: str) -> fields.Field:
    """The field of one rule option, with the engine's bounds."""
    if name in BOOL_OPTIONS:
        return StrictBoolean()
    low, high = INT_OPTION_BOUNDS[name]
    # knock_limit is null under Oklahoma (the engine refuses a null without it)
    return StrictInteger(validate=validate.Range(low, high), allow_none=name in NULLABLE_OPTIONS or name == "knock_limit")


class OptionsSchema(StrictSchema):
    """The rule options of RULES.md §4; each omitted one takes the variant's default."""

    target_score = _option_field("target_score")
    knock_limit = _option_field("knock_limit")
    gin_bonus = _option_field("gin_bonus")
    big_gin_bonus = _option_field("big_gin_bonus")
    gin_adds_deadwood = _option_field("gin_adds_deadwood")
    undercut_bonus = _option_field("undercut_bonus")
    max_turns_per_hand = _option_field("max_turns_per_hand")
    turn_timeout_s = _option_field("turn_timeout_s")
    client_seed_wait_s = _option_field("client_seed_wait_s")
    box_bonus = _option_field("box_bonus")
    game_bonus = _option_field("game_bonus")
    shutout_bonus = _option_field("shutout_bonus")
    shutout_doubles = _option_field("shutout_doubles")
    oklahoma = _option_field("oklahoma")
    oklahoma_spades_double = _option_field("oklahoma_spades_double")
    hollywood = _option_field("hollywood")


class HumanSeatSchema(StrictSchema):
    """A seat for a person, who receives a token for it."""

    name = Name(required=True)


class BotSeatSchema(StrictSchema):
    """A seat played by the server with one of its strategies."""

    bot = fields.String(required=True, validate=validate.OneOf(BOT_POLICY_NAMES))
    name = Name()
    #: the expert's thinking time per move; strategies that do not search ignore it
    budget_ms = StrictInteger(validate=validate.Range(min=10, max=5000))


class AccountSeatSchema(StrictSchema):
    """A seat for a bot account (POST /bots), which plays it with its own token."""

    account = fields.String(required=True, validate=validate.Regexp(r"^[A-Za-z0-9_-]{2,32}$"))


class SeatSpecField(fields.Field):
    """One entry of ``seats``: a human seat, a bot seat, a bot account's seat or null (an open seat)."""

    def __init__(self, **kwargs):
        super().__init__(allow_none=True, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, dict):
            raise ValidationError("A seat is {'name': ...}, {'bot': ..., 'name'?: ...}, {'account': ...} or null.")
        if "account" in value:
            return _ACCOUNT_SEAT.load(value)
        return (_BOT_SEAT if "bot" in value else _HUMAN_SEAT).load(value)


# built once: a schema instance holds no per-call state, and building one deep-copies its fields
_BOT_SEAT = BotSeatSchema()
_HUMAN_SEAT = HumanSeatSchema()
_ACCOUNT_SEAT = AccountSeatSchema()


class RolesSchema(StrictSchema):
    """Explicit three-hand roles: a seat index for each of box, captain and advisor."""

    box = StrictInteger(required=True, validate=validate.Range(0, len(ROLE_NAMES) - 1))
    captain = StrictInteger(required=True, validate=validate.Range(0, len(ROLE_NAMES) - 1))
    advisor = StrictInteger(required=True, validate=validate.Range(0, len(ROLE_NAMES) - 1))

    @validates_schema
    def _distinct(self, data, **kwargs):
        if len({data[role] for role in ROLE_NAMES}) != len(ROLE_NAMES):
            raise ValidationError("Each role goes to a different seat.")


class CreateGameSchema(StrictSchema):
    """POST /games."""

    variant = fields.String(required=True, validate=validate.OneOf(VARIANT_NAMES))
    #: a named rule set (RULES.md §5 Presets); the engine refuses an unknown one (unknown_rules)
    rules = fields.String(validate=validate.Length(1, 64))
    options = fields.Nested(OptionsSchema)
    seats = fields.List(SeatSpecField(), required=True, validate=validate.Length(MIN_SEATS, MAX_SEATS))
    roles = fields.Nested(RolesSchema)
    first_dealer = StrictInteger(validate=validate.Range(0, SEATS_PER_VARIANT[GIN_RAMI] - 1))
    #: open seats only an invited player may claim, with the secret the answer gives once per seat
    private = StrictBoolean()
    decks = fields.List(
        fields.List(CardCode(), validate=[validate.Length(52, 52), unique_cards]),
        validate=validate.Length(1, MAX_DECKS),
    )

    @validates_schema
    def _fits_variant(self, data, **kwargs):
        variant = data.get("variant")
        if variant not in SEATS_PER_VARIANT:
            return
        errors = {}
        want = SEATS_PER_VARIANT[variant]
        if "seats" in data and len(data["seats"]) != want:
            errors["seats"] = [f"{variant} has exactly {want} seats."]
        if variant == GIN_RAMI and "roles" in data:
            errors["roles"] = ["Roles exist only in three-hand."]
        if variant == THREE_HAND and "first_dealer" in data:
            errors["first_dealer"] = ["In three-hand the box deals; give roles instead."]
        if errors:
            raise ValidationError(errors)


class SeatInfoSchema(Schema):
    """A seat as the creation answer shows it (the token only this once)."""

    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True, required=True)
    kind = fields.String(required=True)
    bot = fields.String()
    account = fields.String()
    token = fields.String()
    invite = fields.String()


class ClaimSeatSchema(StrictSchema):
    """POST /games/{id}/seats/{seat}."""

    name = Name(required=True)
    #: the seat's invite secret, for a seat of a private game
    invite = fields.String(validate=validate.Length(1, 200))
    #: the seat's client seed (any JSON value here: the engine answers invalid_client_seed)
    client_seed = fields.Raw(allow_none=True)


class AdviceSchema(StrictSchema):
    """POST /games/{id}/advice."""

    #: one line of text: no line break, control or format character, and something visible
    text = fields.String(required=True, validate=[validate.Length(1, MAX_ADVICE_LENGTH), visible_text])


# -- moves: one schema per command type, chosen by "type" ---------------------------------------

class _TypeOnly(StrictSchema):
    type = fields.String(required=True)


class DiscardSchema(_TypeOnly):
    card = CardCode(required=True)


class KnockSchema(_TypeOnly):
    discard = CardCode(allow_none=True, load_default=None)
    melds = fields.List(
        fields.List(CardCode(), validate=[validate.Length(MIN_MELD_CARDS, MAX_HAND_CARDS), unique_cards]),
        allow_none=True,
        load_default=None,
        validate=validate.Length(0, MAX_MELDS),
    )


class ClientSeedSchema(_TypeOnly):
    # any JSON value: the engine checks it and answers invalid_client_seed
    client_seed = fields.Raw(required=True, allow_none=True)


# one schema per move type of the engine, in its order; a move without fields is its type alone
_FIELDS_OF_MOVE: dict[str, type[Schema]] = {
    "discard": DiscardSchema, "knock": KnockSchema, "client_seed": ClientSeedSchema,
}
MOVE_SCHEMAS: dict[str, type[Schema]] = {kind: _FIELDS_OF_MOVE.get(kind, _TypeOnly) for kind in MOVE_TYPES}

_MOVE_SCHEMA_INSTANCES = {kind: schema() for kind, schema in MOVE_SCHEMAS.items()}


class MoveSchema(Schema):
    """POST /games/{id}/moves: one command, its fields chosen by its ``type``."""

    def load(self, data, **kwargs):  # noqa: D102 (dispatch on the discriminator)
        if not isinstance(data, dict):
            raise ValidationError({"_schema": ["A move is an object with a 'type'."]})
        kind = data.get("type")
        if not isinstance(kind, str) or kind not in MOVE_SCHEMAS:
            raise ValidationError({"type": [f"Must be one of: {', '.join(MOVE_SCHEMAS)}."]})
        return _MOVE_SCHEMA_INSTANCES[kind].load(data)


# -- listings, events, time travel ---------------------------------------------------------------

class ListGamesQuery(QuerySchema):
    status = fields.String(validate=validate.OneOf(STATUSES))
    variant = fields.String(validate=validate.OneOf(VARIANT_NAMES))
    cursor = Cursor()
    limit = QueryInteger(load_default=20, validate=validate.Range(1, 100))


class EndSchema(Schema):
    """How a game that is over ended: the target reached, a resignation or abandonment."""

    reason = fields.String(required=True)
    resigned = fields.Integer(allow_none=True, required=True)
    idle_s = fields.Integer(allow_none=True, required=True)
    # only in the end of a game of built-in bots alone ended for its drawn hands in a row
    drawn_hands = fields.Integer()


class GameSummarySchema(Schema):
    game_id = fields.String(required=True)
    variant = fields.String(required=True)
    status = fields.String(required=True)
    created = fields.Integer(required=True)
    updated = fields.Integer(required=True)
    version = fields.Integer(required=True)
    # as in the spectator's view (service.rules.views.summary_of)
    players = fields.Raw(required=True)
    scores = fields.List(fields.Integer(), required=True)
    hand_no = fields.Integer(required=True)
    to_act = fields.List(fields.Integer(), required=True)
    winner = fields.Integer(required=True, allow_none=True)
    end = fields.Nested(EndSchema, allow_none=True, required=True)
    private_seats = fields.List(fields.Integer(), required=True)
    # false: the creator chose the deal (decks, roles or first dealer), and may know every card
    randomly_dealt = fields.Boolean(required=True)
    # the program an imported game was dealt and played with ("openspiel"), or null
    imported_from = fields.String(required=True, allow_none=True)


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSummarySchema), required=True)
    next_cursor = fields.String(allow_none=True, required=True)


class EventsQuery(QuerySchema):
    after = QueryInteger(load_default=0, validate=validate.Range(0, MAX_VERSION))
    limit = QueryInteger(load_default=100, validate=validate.Range(1, 1000))


class EventSchema(Schema):
    version = fields.Integer(required=True)
    ts = fields.Integer(required=True)
    type = fields.String(required=True)
    v = fields.Integer(required=True)
    data = fields.Dict(required=True)


class EventListSchema(Schema):
    events = fields.List(fields.Nested(EventSchema), required=True)
    next_after = fields.Integer(allow_none=True, required=True)


class StateQuery(QuerySchema):
    # (below 1: 422 invalid_version, as the spec says; above MAX_VERSION: no version, 400)
    version = QueryInteger(required=True, validate=validate.Range(None, MAX_VERSION))


class HandResultsQuery(QuerySchema):
    #: the index of the first result of the page (0: the game's first hand)
    offset = QueryInteger(load_default=0, validate=validate.Range(0, MAX_VERSION))
    limit = QueryInteger(load_default=50, validate=validate.Range(1, 200))


class StreamQuery(QuerySchema):
    after = QueryInteger(validate=validate.Range(0, MAX_VERSION))
    once = fields.String(load_default="0", validate=validate.OneOf(["0", "1", "false", "true"]))
    token = fields.String(validate=validate.Length(1, 200))


class AuditSchema(Schema):
    game_id = fields.String(required=True)
    seed = fields.String(required=True)
    commitment = fields.String(required=True)
    commitment_ok = fields.Boolean(required=True)
    deals_ok = fields.Boolean(required=True)
    replay_ok = fields.Boolean(required=True)
    ok = fields.Boolean(required=True)
    checks = fields.List(fields.Dict(), required=True)
    not_checked = fields.String(required=True)
