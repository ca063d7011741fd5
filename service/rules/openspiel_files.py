"""``ginbox convert``'s files: an export's lines to OpenSpiel records, a record's JSON to an export (docs: OPENSPIEL.md).

Which way a file goes is read from it: lines of events are an export, one JSON document a record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from . import events
from .errors import RulesError
from .openspiel import export_lines, from_record, to_record


class ConvertError(Exception):
    """A file that does not convert: a stable ``code`` and the reason."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@dataclass
class Converted:
    """What a conversion writes (``text``), the suffix of its default file name, and what it says."""

    text: str
    suffix: str
    lines: list[str] = field(default_factory=list)


def _document(text: str) -> Any:
    """The one JSON document ``text`` holds, or None when it is no single document."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _log(text: str) -> list:
    """The events of an export's lines; ConvertError ``not_an_export`` when they are not a game's log."""
    log = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        doc = _document(line)
        if not isinstance(doc, dict):
            raise ConvertError("not_an_export", f"line {n} is not a JSON object: neither an export (NDJSON, one "
                                                "event a line) nor an OpenSpiel record (one JSON document)")
        if "version" not in doc:
            continue  # advice: a gin-rami game has none, and OpenSpiel has no place for it
        if doc["version"] != len(log) + 1:
            raise ConvertError("not_an_export", f"line {n}: event {len(log) + 1} expected, got version "
                                                f"{doc['version']!r}")
        try:
            log.append(events.decode({"type": doc.get("type"), "v": doc.get("v"), "data": doc.get("data")}))
        except RulesError as err:
            raise ConvertError("not_an_export", f"line {n}: {err.message}") from None
        except (TypeError, KeyError, ValueError, AttributeError) as err:
            raise ConvertError("not_an_export", f"line {n}: not an event ({err})") from None
    if not log or type(log[0]) is not events.GameCreated:
        raise ConvertError("not_an_export", "no game's export: its first event is not game_created")
    return log


def convert_text(text: str) -> Converted:
    """Convert a file's text either way; ConvertError when it does not convert."""
    doc = _document(text)
    is_record = isinstance(doc, list) or (isinstance(doc, dict) and "version" not in doc)
    try:
        return _import(doc) if is_record else _export(_log(text))
    except RulesError as err:
        raise ConvertError(err.code, err.message) from None


def _export(log: list) -> Converted:
    record = to_record(log)
    hands = record["hands"]
    p = record["parameters"]
    lines = [f"{len(hands)} hand{'' if len(hands) == 1 else 's'} as OpenSpiel gin_rummy games (knock_card "
             f"{p['knock_card']}, gin_bonus {p['gin_bonus']}, undercut_bonus {p['undercut_bonus']}, oklahoma "
             f"{str(p['oklahoma']).lower()}), {sum(len(h['actions']) for h in hands)} actions"]
    for h in hands:
        if not h["terminal"]:
            lines.append(f"hand {h['hand_no']}: not over (the game ended in it); OpenSpiel's state is not terminal")
        elif h["returns"] and max(h["returns"]) != max(h["ginbox_points"]):
            lines.append(f"hand {h['hand_no']}: OpenSpiel returns {h['returns']}, ginbox scored {h['ginbox_points']} "
                         "(a tie: OpenSpiel scores it 0, ginbox gives the defender the undercut bonus)")
    return Converted(json.dumps(record, indent=1) + "\n", ".openspiel.json", lines)


def _import(doc: Any) -> Converted:
    notes: list[str] = []
    log = from_record(doc, notes)
    hands = sum(1 for e in log if type(e) is events.HandDealt)
    final = log[-1]
    how = {events.GameEnded: f"won by seat {getattr(final, 'winner', None)}", events.GameResigned: "resigned",
           events.GameAbandoned: "ended with no winner (abandoned)"}.get(type(final), type(final).TYPE)
    lines = [f"a ginbox game of {hands} hand{'' if hands == 1 else 's'}, {how}, scores {list(final.scores)}; its "
             "first event says imported_from openspiel (not dealt by this server)"] + notes
    return Converted("".join(export_lines(log)), ".ndjson", lines)
