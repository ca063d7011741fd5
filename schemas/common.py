"""Building blocks shared by the wire schemas: strict JSON scalars, card codes, problems."""

from __future__ import annotations

import re

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, validate

CARD_PATTERN = r"^[A2-9TJQK][CDHS]$"
# whitespace as both Python's str.strip() and ECMA-262's \s know it: a text must hold one other
# character, so that the spec's pattern and the server agree exactly on what is blank
_BLANK = "\t\n\u000b\u000c\r \u001c-\u001f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
NON_BLANK_PATTERN = f"[^{_BLANK}]"
_CONTROL = re.compile(r"[\u0000-\u001F\u007F]")
_NON_BLANK = re.compile(NON_BLANK_PATTERN)
_DECIMAL = re.compile(r"-?[0-9]{1,18}\Z")
GAME_ID_PATTERN = r"^[A-Za-z0-9_-]{16}$"
VARIANTS = ("three-hand", "gin-rami")
STATUSES = ("waiting", "playing", "over")
BOT_STRATEGIES = ("random", "basic", "expert")


class StrictSchema(Schema):
    """A request body: unknown fields are an error, not silently dropped."""

    class Meta:
        unknown = RAISE


class QuerySchema(Schema):
    """Query parameters: strings parsed by type, unknown parameters ignored."""

    class Meta:
        unknown = EXCLUDE


class StrictInteger(fields.Integer):
    """A JSON integer: no strings, no floats, no booleans."""

    def __init__(self, **kwargs):
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class StrictBoolean(fields.Boolean):
    """A JSON boolean: ``true`` or ``false`` only."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class QueryInteger(fields.Integer):
    """An integer query parameter written in decimal digits."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str) and not _DECIMAL.match(value):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


def CardCode(**kwargs) -> fields.String:
    """A card code such as ``"TD"`` (rank A23456789TJQK, then suit CDHS)."""
    return fields.String(validate=validate.Regexp(CARD_PATTERN, error="Not a card code such as 'TD'."), **kwargs)


def no_control_characters(text: str) -> None:
    """Validator: a one-line printable text (names)."""
    if _CONTROL.search(text):
        raise ValidationError("Control characters are not allowed.")


def not_blank(text: str) -> None:
    """Validator: at least one character that is not whitespace."""
    if not _NON_BLANK.search(text):
        raise ValidationError("Must not be blank.")


def unique_cards(cards: list) -> None:
    """Validator: no card appears twice."""
    if len(set(cards)) != len(cards):
        raise ValidationError("A card appears twice.")


class ProblemSchema(Schema):
    """RFC 9457 problem details with the API's stable ``code``."""

    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    code = fields.String(required=True)
    detail = fields.String(required=True)
    errors = fields.Dict(keys=fields.String())
