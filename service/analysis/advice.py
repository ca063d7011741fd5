"""The move a piece of advice names, when it is worded as the built-in advisor words it."""

from __future__ import annotations

import re

from service.rules import cards

_CARD = r"([A2-9TJQK][CDHS])"
_PATTERNS = (
    (re.compile(r"^\s*take the upcard\b", re.I), lambda m: ("take",)),
    (re.compile(r"^\s*pass the upcard\b", re.I), lambda m: ("pass",)),
    (re.compile(r"^\s*draw from the stock\b", re.I), lambda m: ("stock",)),
    (re.compile(r"^\s*take the top card of the discard pile\b", re.I), lambda m: ("pile",)),
    (re.compile(r"^\s*discard " + _CARD + r"\b", re.I), lambda m: ("discard", cards.INDEX_OF[m.group(1).upper()])),
    (re.compile(r"^\s*knock, discarding " + _CARD + r"\b", re.I),
     lambda m: ("knock", cards.INDEX_OF[m.group(1).upper()])),
    (re.compile(r"^\s*lay down big gin\b", re.I), lambda m: ("big_gin",)),
)


def advised_move(text: str) -> tuple | None:
    """The move tuple ``text`` names ("Discard 7H: ...", "Knock, discarding 3C.") or None."""
    for pattern, move in _PATTERNS:
        m = pattern.match(text)
        if m:
            return move(m)
    return None
