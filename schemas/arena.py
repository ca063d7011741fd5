"""The arena's wire format: bot accounts, matches, challenges (requests; answers are built in their wire shape)."""

from __future__ import annotations

from marshmallow import ValidationError, fields, validate, validates_schema

from schemas.common import Name, QueryInteger, QuerySchema, StrictBoolean, StrictInteger, StrictSchema, plain_text
from schemas.games import OptionsSchema
from service.rules.duplicate import MAX_BOARDS, PARTICIPANTS
from service.rules.names import BOT_POLICY_NAMES

#: a bot account's name (the arena refuses with 422 the names it reserves: service.arena.reserved_bot_name)
BOT_NAME_PATTERN = r"^[A-Za-z0-9_-]{2,32}$"
#: the same, as the server checks it: the whole text (Python's ``$`` would let a final line break through)
_BOT_NAME = validate.Regexp(BOT_NAME_PATTERN.replace("$", r"\Z"))
VARIANTS = tuple(PARTICIPANTS)
#: the longest time per move a match or challenge may give (a day, as the turn clock option)
MAX_MOVE_TIME_S = 86_400


class RegisterBotSchema(StrictSchema):
    """POST /bots."""

    name = fields.String(required=True, validate=_BOT_NAME)
    description = fields.String(validate=[validate.Length(0, 500), plain_text])
    owner = fields.String(validate=[validate.Length(0, 200), plain_text])
    #: whether any caller may seat this bot in a match (POST /matches); else only its own token may
    accepts_matches = StrictBoolean()
    #: whether any caller may enter this bot in a tournament (POST /tournaments); else only its own token may
    accepts_tournaments = StrictBoolean()


class UpdateBotSchema(StrictSchema):
    """PATCH /bots/me: one setting at least."""

    accepts_matches = StrictBoolean()
    accepts_tournaments = StrictBoolean()

    @validates_schema
    def _one_at_least(self, data, **kwargs):
        if not data:
            raise ValidationError("Send accepts_matches, accepts_tournaments or both.", "accepts_matches")


class CreateMatchSchema(StrictSchema):
    """POST /matches."""

    variant = fields.String(required=True, validate=validate.OneOf(VARIANTS))
    participants = fields.List(fields.String(validate=validate.Length(1, 40)), required=True,
                               validate=validate.Length(min(PARTICIPANTS.values()), max(PARTICIPANTS.values())))
    boards = StrictInteger(required=True, validate=validate.Range(1, MAX_BOARDS))
    #: a named rule set (RULES.md §5 Presets) that ``options`` override, as on POST /games
    rules = fields.String(validate=validate.Length(1, 64))
    options = fields.Nested(OptionsSchema)
    move_time_s = StrictInteger(validate=validate.Range(1, MAX_MOVE_TIME_S))
    rated = StrictBoolean()


class ChallengeSchema(StrictSchema):
    """POST /challenges."""

    to = fields.String(required=True, validate=_BOT_NAME)
    variant = fields.String(required=True, validate=validate.OneOf(VARIANTS))
    #: the participants besides the challenger and the challenged (three-hand: one), checked by the arena
    with_ = fields.List(fields.String(validate=validate.Length(1, 40)), data_key="with",
                        validate=validate.Length(0, max(PARTICIPANTS.values()) - 2))
    #: a named rule set (RULES.md §5 Presets) that ``options`` override, as on POST /games
    rules = fields.String(validate=validate.Length(1, 64))
    options = fields.Nested(OptionsSchema)
    boards = StrictInteger(validate=validate.Range(1, MAX_BOARDS))
    move_time_s = StrictInteger(validate=validate.Range(1, MAX_MOVE_TIME_S))
    #: a person's name (a bot presents its token instead)
    name = Name()


#: the most entries a body of POST /tournaments may name (the server's bound, GINBOX_TOURNAMENT_ENTRIES, is lower)
MAX_TOURNAMENT_ENTRIES = 256


class CreateTournamentSchema(StrictSchema):
    """POST /tournaments: the arena checks ``system``, the number of entries, rounds and boards against its bounds."""

    system = fields.String(required=True, validate=validate.Length(1, 40))
    variant = fields.String(load_default="gin-rami", validate=validate.OneOf(VARIANTS))
    entries = fields.List(fields.String(validate=validate.Length(1, 40)), required=True,
                          validate=validate.Length(0, MAX_TOURNAMENT_ENTRIES))
    rounds = StrictInteger(validate=validate.Range(1, 100))
    boards = StrictInteger(required=True, validate=validate.Range(1, MAX_BOARDS))
    rules = fields.String(validate=validate.Length(1, 64))
    options = fields.Nested(OptionsSchema)
    move_time_s = StrictInteger(validate=validate.Range(1, MAX_MOVE_TIME_S))
    rated = StrictBoolean()


#: the longest text a bot may add to its reason for declining a challenge
MAX_DECLINE_TEXT = 200


class DeclineSchema(StrictSchema):
    """POST /challenges/{id}/decline (a body is optional): the arena checks ``reason`` (422 invalid_decline_reason)."""

    reason = fields.String(validate=validate.Length(1, 40))
    text = fields.String(validate=[validate.Length(1, MAX_DECLINE_TEXT), plain_text])


class RatingsQuery(QuerySchema):
    variant = fields.String(load_default="gin-rami", validate=validate.OneOf(VARIANTS))


#: an id of a bot's stream (``<ms>-<seq>``), or 0 for its start
BOT_STREAM_ID_PATTERN = r"^(0|[0-9]{1,15}-[0-9]{1,10})$"


class BotStreamQuery(QuerySchema):
    once = fields.String(load_default="0", validate=validate.OneOf(("0", "1", "true", "false")))
    after = fields.String(validate=validate.Regexp(BOT_STREAM_ID_PATTERN.replace("$", r"\Z"),
                                                   error="Not an id of the bot's stream (digits-digits), or 0."))


#: a game id, the cursor of GET /bots/me/games (its games are listed in id order)
GAME_CURSOR_PATTERN = r"^[A-Za-z0-9_-]{16}$"
#: the largest page of GET /bots/me/games and GET /bots
MAX_BOT_GAMES_PAGE = 200
MAX_BOTS_PAGE = 100


class BotGamesQuery(QuerySchema):
    """GET /bots/me/games."""

    cursor = fields.String(validate=validate.Regexp(GAME_CURSOR_PATTERN.replace("$", r"\Z"),
                                                    error="Not a cursor this server hands out (next_cursor)."))
    limit = QueryInteger(load_default=100, validate=validate.Range(1, MAX_BOT_GAMES_PAGE))


class BotListQuery(QuerySchema):
    """GET /bots: the cursor is the last name of the page before."""

    cursor = fields.String(validate=validate.Regexp(BOT_NAME_PATTERN.replace("$", r"\Z"),
                                                    error="Not a cursor this server hands out (next_cursor)."))
    limit = QueryInteger(load_default=50, validate=validate.Range(1, MAX_BOTS_PAGE))


__all__ = ["BOT_POLICY_NAMES", "BotGamesQuery", "BotListQuery", "BotStreamQuery", "ChallengeSchema", "DeclineSchema",
           "CreateMatchSchema", "CreateTournamentSchema", "RatingsQuery", "RegisterBotSchema", "UpdateBotSchema"]
