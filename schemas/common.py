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
# the combining marks (categories Mn, Mc, Me, as of Unicode 14.0): each sits on the character before it,
# so a name of marks alone shows nothing of its own
_NAME_MARKS = (
    (0x0300, 0x036F), (0x0483, 0x0489), (0x0591, 0x05BD), (0x05BF, 0x05BF), (0x05C1, 0x05C2),
    (0x05C4, 0x05C5), (0x05C7, 0x05C7), (0x0610, 0x061A), (0x064B, 0x065F), (0x0670, 0x0670),
    (0x06D6, 0x06DC), (0x06DF, 0x06E4), (0x06E7, 0x06E8), (0x06EA, 0x06ED), (0x0711, 0x0711),
    (0x0730, 0x074A), (0x07A6, 0x07B0), (0x07EB, 0x07F3), (0x07FD, 0x07FD), (0x0816, 0x0819),
    (0x081B, 0x0823), (0x0825, 0x0827), (0x0829, 0x082D), (0x0859, 0x085B), (0x0898, 0x089F),
    (0x08CA, 0x08E1), (0x08E3, 0x0903), (0x093A, 0x093C), (0x093E, 0x094F), (0x0951, 0x0957),
    (0x0962, 0x0963), (0x0981, 0x0983), (0x09BC, 0x09BC), (0x09BE, 0x09C4), (0x09C7, 0x09C8),
    (0x09CB, 0x09CD), (0x09D7, 0x09D7), (0x09E2, 0x09E3), (0x09FE, 0x09FE), (0x0A01, 0x0A03),
    (0x0A3C, 0x0A3C), (0x0A3E, 0x0A42), (0x0A47, 0x0A48), (0x0A4B, 0x0A4D), (0x0A51, 0x0A51),
    (0x0A70, 0x0A71), (0x0A75, 0x0A75), (0x0A81, 0x0A83), (0x0ABC, 0x0ABC), (0x0ABE, 0x0AC5),
    (0x0AC7, 0x0AC9), (0x0ACB, 0x0ACD), (0x0AE2, 0x0AE3), (0x0AFA, 0x0AFF), (0x0B01, 0x0B03),
    (0x0B3C, 0x0B3C), (0x0B3E, 0x0B44), (0x0B47, 0x0B48), (0x0B4B, 0x0B4D), (0x0B55, 0x0B57),
    (0x0B62, 0x0B63), (0x0B82, 0x0B82), (0x0BBE, 0x0BC2), (0x0BC6, 0x0BC8), (0x0BCA, 0x0BCD),
    (0x0BD7, 0x0BD7), (0x0C00, 0x0C04), (0x0C3C, 0x0C3C), (0x0C3E, 0x0C44), (0x0C46, 0x0C48),
    (0x0C4A, 0x0C4D), (0x0C55, 0x0C56), (0x0C62, 0x0C63), (0x0C81, 0x0C83), (0x0CBC, 0x0CBC),
    (0x0CBE, 0x0CC4), (0x0CC6, 0x0CC8), (0x0CCA, 0x0CCD), (0x0CD5, 0x0CD6), (0x0CE2, 0x0CE3),
    (0x0D00, 0x0D03), (0x0D3B, 0x0D3C), (0x0D3E, 0x0D44), (0x0D46, 0x0D48), (0x0D4A, 0x0D4D),
    (0x0D57, 0x0D57), (0x0D62, 0x0D63), (0x0D81, 0x0D83), (0x0DCA, 0x0DCA), (0x0DCF, 0x0DD4),
    (0x0DD6, 0x0DD6), (0x0DD8, 0x0DDF), (0x0DF2, 0x0DF3), (0x0E31, 0x0E31), (0x0E34, 0x0E3A),
    (0x0E47, 0x0E4E), (0x0EB1, 0x0EB1), (0x0EB4, 0x0EBC), (0x0EC8, 0x0ECD), (0x0F18, 0x0F19),
    (0x0F35, 0x0F35), (0x0F37, 0x0F37), (0x0F39, 0x0F39), (0x0F3E, 0x0F3F), (0x0F71, 0x0F84),
    (0x0F86, 0x0F87), (0x0F8D, 0x0F97), (0x0F99, 0x0FBC), (0x0FC6, 0x0FC6), (0x102B, 0x103E),
    (0x1056, 0x1059), (0x105E, 0x1060), (0x1062, 0x1064), (0x1067, 0x106D), (0x1071, 0x1074),
    (0x1082, 0x108D), (0x108F, 0x108F), (0x109A, 0x109D), (0x135D, 0x135F), (0x1712, 0x1715),
    (0x1732, 0x1734), (0x1752, 0x1753), (0x1772, 0x1773), (0x17B4, 0x17D3), (0x17DD, 0x17DD),
    (0x180B, 0x180D), (0x180F, 0x180F), (0x1885, 0x1886), (0x18A9, 0x18A9), (0x1920, 0x192B),
    (0x1930, 0x193B), (0x1A17, 0x1A1B), (0x1A55, 0x1A5E), (0x1A60, 0x1A7C), (0x1A7F, 0x1A7F),
    (0x1AB0, 0x1ACE), (0x1B00, 0x1B04), (0x1B34, 0x1B44), (0x1B6B, 0x1B73), (0x1B80, 0x1B82),
    (0x1BA1, 0x1BAD), (0x1BE6, 0x1BF3), (0x1C24, 0x1C37), (0x1CD0, 0x1CD2), (0x1CD4, 0x1CE8),
    (0x1CED, 0x1CED), (0x1CF4, 0x1CF4), (0x1CF7, 0x1CF9), (0x1DC0, 0x1DFF), (0x20D0, 0x20F0),
    (0x2CEF, 0x2CF1), (0x2D7F, 0x2D7F), (0x2DE0, 0x2DFF), (0x302A, 0x302F), (0x3099, 0x309A),
    (0xA66F, 0xA672), (0xA674, 0xA67D), (0xA69E, 0xA69F), (0xA6F0, 0xA6F1), (0xA802, 0xA802),
    (0xA806, 0xA806), (0xA80B, 0xA80B), (0xA823, 0xA827), (0xA82C, 0xA82C), (0xA880, 0xA881),
    (0xA8B4, 0xA8C5), (0xA8E0, 0xA8F1), (0xA8FF, 0xA8FF), (0xA926, 0xA92D), (0xA947, 0xA953),
    (0xA980, 0xA983), (0xA9B3, 0xA9C0), (0xA9E5, 0xA9E5), (0xAA29, 0xAA36), (0xAA43, 0xAA43),
    (0xAA4C, 0xAA4D), (0xAA7B, 0xAA7D), (0xAAB0, 0xAAB0), (0xAAB2, 0xAAB4), (0xAAB7, 0xAAB8),
    (0xAABE, 0xAABF), (0xAAC1, 0xAAC1), (0xAAEB, 0xAAEF), (0xAAF5, 0xAAF6), (0xABE3, 0xABEA),
    (0xABEC, 0xABED), (0xFB1E, 0xFB1E), (0xFE00, 0xFE0F), (0xFE20, 0xFE2F), (0x101FD, 0x101FD),
    (0x102E0, 0x102E0), (0x10376, 0x1037A), (0x10A01, 0x10A03), (0x10A05, 0x10A06), (0x10A0C, 0x10A0F),
    (0x10A38, 0x10A3A), (0x10A3F, 0x10A3F), (0x10AE5, 0x10AE6), (0x10D24, 0x10D27), (0x10EAB, 0x10EAC),
    (0x10F46, 0x10F50), (0x10F82, 0x10F85), (0x11000, 0x11002), (0x11038, 0x11046), (0x11070, 0x11070),
    (0x11073, 0x11074), (0x1107F, 0x11082), (0x110B0, 0x110BA), (0x110C2, 0x110C2), (0x11100, 0x11102),
    (0x11127, 0x11134), (0x11145, 0x11146), (0x11173, 0x11173), (0x11180, 0x11182), (0x111B3, 0x111C0),
    (0x111C9, 0x111CC), (0x111CE, 0x111CF), (0x1122C, 0x11237), (0x1123E, 0x1123E), (0x112DF, 0x112EA),
    (0x11300, 0x11303), (0x1133B, 0x1133C), (0x1133E, 0x11344), (0x11347, 0x11348), (0x1134B, 0x1134D),
    (0x11357, 0x11357), (0x11362, 0x11363), (0x11366, 0x1136C), (0x11370, 0x11374), (0x11435, 0x11446),
    (0x1145E, 0x1145E), (0x114B0, 0x114C3), (0x115AF, 0x115B5), (0x115B8, 0x115C0), (0x115DC, 0x115DD),
    (0x11630, 0x11640), (0x116AB, 0x116B7), (0x1171D, 0x1172B), (0x1182C, 0x1183A), (0x11930, 0x11935),
    (0x11937, 0x11938), (0x1193B, 0x1193E), (0x11940, 0x11940), (0x11942, 0x11943), (0x119D1, 0x119D7),
    (0x119DA, 0x119E0), (0x119E4, 0x119E4), (0x11A01, 0x11A0A), (0x11A33, 0x11A39), (0x11A3B, 0x11A3E),
    (0x11A47, 0x11A47), (0x11A51, 0x11A5B), (0x11A8A, 0x11A99), (0x11C2F, 0x11C36), (0x11C38, 0x11C3F),
    (0x11C92, 0x11CA7), (0x11CA9, 0x11CB6), (0x11D31, 0x11D36), (0x11D3A, 0x11D3A), (0x11D3C, 0x11D3D),
    (0x11D3F, 0x11D45), (0x11D47, 0x11D47), (0x11D8A, 0x11D8E), (0x11D90, 0x11D91), (0x11D93, 0x11D97),
    (0x11EF3, 0x11EF6), (0x16AF0, 0x16AF4), (0x16B30, 0x16B36), (0x16F4F, 0x16F4F), (0x16F51, 0x16F87),
    (0x16F8F, 0x16F92), (0x16FE4, 0x16FE4), (0x16FF0, 0x16FF1), (0x1BC9D, 0x1BC9E), (0x1CF00, 0x1CF2D),
    (0x1CF30, 0x1CF46), (0x1D165, 0x1D169), (0x1D16D, 0x1D172), (0x1D17B, 0x1D182), (0x1D185, 0x1D18B),
    (0x1D1AA, 0x1D1AD), (0x1D242, 0x1D244), (0x1DA00, 0x1DA36), (0x1DA3B, 0x1DA6C), (0x1DA75, 0x1DA75),
    (0x1DA84, 0x1DA84), (0x1DA9B, 0x1DA9F), (0x1DAA1, 0x1DAAF), (0x1E000, 0x1E006), (0x1E008, 0x1E018),
    (0x1E01B, 0x1E021), (0x1E023, 0x1E024), (0x1E026, 0x1E02A), (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE),
    (0x1E2EC, 0x1E2EF), (0x1E8D0, 0x1E8D6), (0x1E944, 0x1E94A), (0xE0100, 0xE01EF),
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
NAME_PATTERN = (f"^[^{_FORBIDDEN_CLASS}]*[^{_FORBIDDEN_CLASS}{_char_class(_NAME_INVISIBLE)}{_char_class(_NAME_MARKS)}]"
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
    separator character (Cc, Cf, Zl, Zp), at least one of them visible: neither blank nor a
    combining mark (see NAME_PATTERN).

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

