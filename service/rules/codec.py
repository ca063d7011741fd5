"""How the store keeps an event: the packed form of its wire form (RULES.md has nothing to say here).

An event's wire form (``events.encode``) is ``{"type", "v", "data"}``: the API shows it, the export writes it.
Its packed form is the JSON array ``[type, v, value of each field in the class's order ...]``.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from .events import REGISTRY, UnknownEventType, decode, encode

# The store's default codec: encode/decode (the events' own) and pack/unpack.
__all__ = ["PACKED_TYPES", "decode", "encode", "pack", "unpack"]

_FIELDS = {cls: tuple(f.name for f in dataclasses.fields(cls)) for cls in REGISTRY.values()}

# A log keeps hundreds of events a game, so the store keeps each one packed.
#: short names of the types in the packed form; a type without one keeps its own name
PACKED_TYPES = {
    "game_created": "gc", "seat_claimed": "sc", "cards_cut": "cu", "roles_assigned": "ro",
    "dealer_chosen": "dc", "hand_dealt": "hd", "upcard_taken": "ut", "upcard_passed": "up",
    "card_drawn": "dr", "card_discarded": "di", "knocked": "kn", "hand_scored": "hs",
    "hand_drawn": "hn", "advice_given": "ad", "turn_timed_out": "to", "game_ended": "ge",
    "game_resigned": "rs", "game_abandoned": "ab", "game_expired": "ex",
}
_UNPACKED_TYPES = {short: name for name, short in PACKED_TYPES.items()}
_CARD_CODES = frozenset(r + s for r in "A23456789TJQK" for s in "CDHS")


def _pack_value(value: Any) -> Any:
    # A string value that itself starts with "~" is written with a second "~" in front.
    if isinstance(value, str):
        return "~" + value if value.startswith("~") else value
    if isinstance(value, list):
        # Every list of card codes is written as one string, "~" + the codes.
        # A 52-card deck then takes 105 characters instead of 260.
        if value and all(isinstance(v, str) and v in _CARD_CODES for v in value):
            return "~" + "".join(value)
        return [_pack_value(v) for v in value]
    return value  # numbers, booleans, None and objects (players, options: opaque JSON) as they are


def _unpack_value(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("~"):
        rest = value[1:]
        if rest.startswith("~"):
            return rest
        return [rest[i:i + 2] for i in range(0, len(rest), 2)]
    if isinstance(value, list):
        return [_unpack_value(v) for v in value]
    return value


def pack(wire: dict) -> str:
    """The packed JSON text of an event's wire form (see the module's docstring)."""
    cls = REGISTRY.get((wire["type"], wire["v"]))
    if cls is None:
        raise UnknownEventType(f"unknown event type {wire['type']!r} version {wire['v']!r}")
    data = wire["data"]
    values = [_pack_value(data.get(name)) for name in _FIELDS[cls]]
    while values and values[-1] is None and _FIELDS[cls][len(values) - 1] in getattr(cls, "OMIT_IF_NONE", ()):
        values.pop()  # trailing fields left out of the wire form stay out of the packed form
    return json.dumps([PACKED_TYPES.get(wire["type"], wire["type"]), wire["v"], *values],
                      separators=(",", ":"), ensure_ascii=False)


#: per short or full type name and version: (type name, field names, the fields left out when None)
_LAYOUTS = {
    (PACKED_TYPES.get(cls.TYPE, cls.TYPE), cls.V): (cls.TYPE, _FIELDS[cls], frozenset(getattr(cls, "OMIT_IF_NONE", ())))
    for cls in REGISTRY.values()
}
_LAYOUTS.update({(cls.TYPE, cls.V): _LAYOUTS[(PACKED_TYPES.get(cls.TYPE, cls.TYPE), cls.V)] for cls in REGISTRY.values()})


def unpack(text: str | bytes) -> dict:
    """The wire form ``{"type", "v", "data"}`` of a stored event, packed or not: exactly the one packed."""
    stored = json.loads(text)
    # A stored JSON object is the wire form itself.
    # So logs written before the packed form read as they are.
    if isinstance(stored, dict):
        return stored
    if not isinstance(stored, list) or len(stored) < 2:
        raise UnknownEventType("a stored event is an object or a packed array")
    try:
        type_name, names, omit = _LAYOUTS[stored[0], stored[1]]
    except (KeyError, TypeError):
        raise UnknownEventType(f"unknown packed event type {stored[0]!r} version {stored[1]!r}") from None
    values = stored[2:]
    if len(values) > len(names):
        raise UnknownEventType(f"a packed {type_name} v{stored[1]} holds {len(values)} values for {len(names)} fields")
    data = {}
    for name, value in zip(names, values):
        if value.__class__ is str:
            if value[:1] == "~":
                value = value[1:] if value[1:2] == "~" else [value[i:i + 2] for i in range(1, len(value), 2)]
        elif value.__class__ is list:
            value = [_unpack_value(v) for v in value]
        # Fields left out of the wire form when None stay left out.
        # So every answer built from a log is the same whichever form the log holds.
        if not (value is None and name in omit):
            data[name] = value
    for name in names[len(values):]:
        if name not in omit:
            data[name] = None
    return {"type": type_name, "v": stored[1], "data": data}
