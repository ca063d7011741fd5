"""A display name shows something: a combining mark alone (with nothing to sit on) is no visible character."""

from __future__ import annotations

import re

import pytest
from marshmallow import Schema, ValidationError

from schemas.common import NAME_PATTERN, VISIBLE_TEXT_PATTERN, Name, visible_text


class _Named(Schema):
    name = Name()


def _load(text: str) -> str:
    return _Named().load({"name": text})["name"]


# U+0301 combining acute (Mn), U+20DD combining enclosing circle (Me), U+0903 Devanagari visarga (Mc),
# U+200B zero width space (Cf), U+3164 Hangul filler, U+FE0F variation selector
NOTHING_VISIBLE = ["\u0301", "\u0301\u0301", " \u0301 ", "\u20dd", "\u0903", "\u0301\u20dd\u0903",
                   "\u200b", "\u200b\u0301", "\u3164\u0301", "\ufe0f\u0301", "\u00a0\u0301"]
VISIBLE = [("a\u0301", "\u00e1"), ("\u0915\u0903", "\u0915\u0903"), ("\u0301a", "\u0301a"), ("ann", "ann"),
           ("1\u20dd", "1\u20dd"), ("\u738b", "\u738b")]


@pytest.mark.parametrize("text", NOTHING_VISIBLE)
def test_a_name_of_combining_marks_and_blanks_only_is_refused(text):
    with pytest.raises(ValidationError):
        _load(text)
    assert not re.search(NAME_PATTERN, text)


@pytest.mark.parametrize("text, stored", VISIBLE)
def test_a_name_with_a_visible_character_is_kept_nfc_normalised(text, stored):
    assert _load(text) == stored
    assert re.search(NAME_PATTERN, text)


@pytest.mark.parametrize("text", NOTHING_VISIBLE)
def test_a_text_of_combining_marks_and_blanks_only_is_not_visible_text(text):
    with pytest.raises(ValidationError):
        visible_text(text)
    assert not re.search(VISIBLE_TEXT_PATTERN, text)
