"""A finished game's export (GET /games/{id}/export) read for an analysis: its log and its advice."""

from __future__ import annotations

import json
from typing import Iterable

from service.rules import events
from service.rules.errors import RulesError


class ExportError(ValueError):
    """The lines are no game's export: the message says which line and why."""


def read_export(lines: Iterable[str]) -> tuple[list, list[dict]]:
    """(decoded log, advice entries) of an export's lines; ExportError when they are not one."""
    log, advice = [], []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except (ValueError, RecursionError) as err:
            raise ExportError(f"line {n} is not JSON: {err}") from None
        if not isinstance(doc, dict):
            raise ExportError(f"line {n} is not an object")
        if "version" not in doc:
            advice.append(doc)
            continue
        if doc["version"] != len(log) + 1:
            raise ExportError(f"line {n}: event {len(log) + 1} expected, got version {doc['version']!r}")
        try:
            log.append(events.decode({"type": doc.get("type"), "v": doc.get("v"), "data": doc.get("data")}))
        except RulesError as err:
            raise ExportError(f"line {n}: {err.message}") from None
        except (TypeError, KeyError, ValueError, AttributeError) as err:
            raise ExportError(f"line {n}: not an event ({err})") from None
    if not log or type(log[0]) is not events.GameCreated:
        raise ExportError("the export holds no game's log (its first event is not game_created)")
    return log, advice
