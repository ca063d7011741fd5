"""Building blocks shared by the wire schemas: strict JSON scalars, card codes, names and texts."""

from __future__ import annotations

import re
import unicodedata

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, validate

from service.rules.cards import CARD_PATTERN

_DECIMAL = re.compile(r"-?[0-9]{1,18}\Z")
GAME_ID_PATTERN = r"^[A-Za-z0-9_-]{16}$"
#: the highest version a request may name (an ETag holds at most 15 digits)
MAX_VERSION = 10**15 - 1
#: a position in the list of games: the 15 digits of the index's sort key, then a game id
#: (``next_cursor`` hands one out; every string of this form is a position, so none is refused)
CURSOR_PATTERN = r"^[0-9]{15}[A-Za-z0-9_-]{16}$"


# -- display names -------------------------------------------------------------------------------
# Every character of the Unicode categories Cc (controls, C1 included), Cf (format: zero-width
# characters, direction marks and overrides, the byte order mark ...), Zl and Zp (line and
# paragraph separators), as of Unicode 14.0 (Python 3.11's unicodedata). Fixed here, rather than
# asked of unicodedata at run time, so that the server and the spec's pattern (built from these
# very ranges; tests/integration/test_strict_input.py compares them) always agree.
_NAME_FORBIDDEN = (
    (0x0000, 0x001F), (0x007F, 0x009F), (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C),
    (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E),
    (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)
# characters that show nothing without being forbidden: whitespace (as in _BLANK), the Hangul
# fillers, the blank Braille pattern, the combining grapheme joiner and the variation selectors
_NAME_INVISIBLE = (
    (0x0020, 0x0020), (0x00A0, 0x00A0), (0x034F, 0x034F), (0x115F, 0x1160), (0x1680, 0x1680),
    (0x2000, 0x200A), (0x202F, 0x202F), (0x205F, 0x205F), (0x2800, 0x2800), (0x3000, 0x3000),
    (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xE0100, 0xE01EF),
)
MAX_NAME = 40


def _char_class(ranges) -> str:
    """The inside of a regex character class: BMP characters as \\uXXXX escapes (understood by
    Python's re, ECMA-262 and the Rust regex crate alike), others as the characters themselves."""

    def one(cp: int) -> str:
        return f"\\u{cp:04X}" if cp <= 0xFFFF else chr(cp)

    return "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in ranges)


_FORBIDDEN_CLASS = _char_class(_NAME_FORBIDDEN)
#: a name: no forbidden character, and at least one visible one (openapi.yaml's Name.pattern)
NAME_PATTERN = (f"^[^{_FORBIDDEN_CLASS}]*[^{_FORBIDDEN_CLASS}{_char_class(_NAME_INVISIBLE)}]"
                f"[^{_FORBIDDEN_CLASS}]*$")
_NAME_FORBIDDEN_RE = re.compile(f"[{_FORBIDDEN_CLASS}]")
_NAME_RE = re.compile(NAME_PATTERN)
#: a free text (a bot's description, its owner): no character a name may not hold (Cc, Cf, Zl, Zp),
#: so that no line break, zero-width or direction character hides in it (openapi.yaml's pattern)
PLAIN_TEXT_PATTERN = f"^[^{_FORBIDDEN_CLASS}]*$"


#: a text to read (a piece of advice): any length, no character a name may not hold, and at least
#: one visible one, as a name (openapi.yaml's Advice.text pattern)
VISIBLE_TEXT_PATTERN = NAME_PATTERN


def visible_text(text: str) -> None:
    """Validator: no control, format, line or paragraph separator character, and at least one
    visible character (VISIBLE_TEXT_PATTERN): no text that shows nothing, or hides something."""
    plain_text(text)
    if not _NAME_RE.search(text):
        raise ValidationError("Must hold at least one visible character.")


def plain_text(text: str) -> None:
    """Validator: no control, format, line or paragraph separator character (PLAIN_TEXT_PATTERN)."""
    if _NAME_FORBIDDEN_RE.search(text):
        raise ValidationError("Control, format (zero-width, direction) and line or paragraph separator "
                              "characters are not allowed.")


class StrictSchema(Schema):
    """A request body: unknown fields are an error, not silently dropped."""

    class Meta:
        unknown = RAISE


class QuerySchema(Schema):
    """Query parameters: strings parsed by type.

    A parameter the operation does not take, or one given twice, never gets here: service.api.query
    refuses it for every operation (only ``token``, which authentication reads, passes by unloaded).
    """

    class Meta:
        unknown = EXCLUDE


class StrictInteger(fields.Integer):
    """A JSON integer: no strings, no floats, no booleans."""

    def __init__(self, **kwargs):
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool):
            raise self.make_error("invalid")
        if isinstance(value, float):
            # JSON Schema's integer is a number with no fractional part: 50.0 (or 5e1) is 50
            if not value.is_integer():
                raise self.make_error("invalid")
            value = int(value)
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


class Name(fields.String):
    """A display name: 1 to 40 characters, none of them a control, format, line or paragraph
    separator character (Cc, Cf, Zl, Zp), at least one of them visible (see NAME_PATTERN).

    Loaded NFC-normalised, without the whitespace around it (what is checked is what was sent,
    as the spec's pattern checks it)."""

    def _deserialize(self, value, attr, data, **kwargs) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        if not 1 <= len(text) <= MAX_NAME:
            raise ValidationError(f"Length must be between 1 and {MAX_NAME}.")
        if _NAME_FORBIDDEN_RE.search(text):
            raise ValidationError("Control, format (zero-width, direction) and line or paragraph separator "
                                  "characters are not allowed.")
        if not _NAME_RE.search(text):
            raise ValidationError("Must hold at least one visible character.")
        return unicodedata.normalize("NFC", text).strip()


class Cursor(fields.String):
    """A list cursor as the server hands it out (CURSOR_PATTERN); the index reads it as it is."""

    def _deserialize(self, value, attr, data, **kwargs) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        if not re.fullmatch(CURSOR_PATTERN, text):
            raise ValidationError("Not a cursor this server hands out (next_cursor of a page).")
        return text


def unique_cards(cards: list) -> None:
    """Validator: no card appears twice."""
    if len(set(cards)) != len(cards):
        raise ValidationError("A card appears twice.")

