"""The audit's replay: the log re-decided command by command, compared with itself event by event.

A failure names the first event that differs from what the rules produce, and the field.
Each hand's deck is taken as the log writes it; the ``deal_<n>`` checks compare it with the seed's.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from . import events, game
from .errors import RulesError


def first_card_difference(got: Any, want: list, source: str) -> str:
    """Where two lists of cards first differ, as the browser's audit (audit.js) words it."""
    if not isinstance(got, (list, tuple)):
        return "the log holds no list of cards"
    if len(got) != len(want):
        return f"{len(got)} cards in the log, {len(want)} expected"
    i = next(k for k, (a, b) in enumerate(zip(got, want)) if a != b)
    return f"card {i + 1} is {got[i]} in the log, {want[i]} {source}"


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _is_cards(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(c, str) and len(c) == 2 for c in value)


def event_difference(version: int, logged: Any, produced: Any) -> str:
    """What differs between the event the log holds at ``version`` and the one the rules produce."""
    if type(logged) is not type(produced):
        return f"event {version} is {type(logged).TYPE} in the log; the rules give {type(produced).TYPE} there"
    parts = []
    for f in dataclasses.fields(logged):
        got, want = getattr(logged, f.name), getattr(produced, f.name)
        if got == want:
            continue
        if _is_cards(got) and _is_cards(want) and len(got) == len(want):
            parts.append(f"{f.name}: {first_card_difference(got, list(want), 'by the rules')}")
        else:
            parts.append(f"{f.name} is {_shown(got)} in the log, {_shown(want)} by the rules")
    return f"event {version} ({type(logged).TYPE}): " + "; ".join(parts)


def as_recorded(logged: Any, produced: Any) -> Any:
    """``produced`` as the log could hold it: an event upcast from an older version is compared
    on the fields that version recorded (the others are unknown in the log, not wrong)."""
    if type(logged) is events.HandScored and type(produced) is events.HandScored:
        if logged.upcast:
            produced = dataclasses.replace(produced, **{name: None for name in events.HandScored.ADDED_IN_V2})
        if (logged.layoffs != produced.layoffs and logged.layoffs is not None and produced.layoffs is not None
                and sorted(logged.layoffs) == sorted(produced.layoffs)):
            # a server before the lay-offs were listed in the order laid listed them by card: the
            # same lay-offs in another order
            produced = dataclasses.replace(produced, layoffs=logged.layoffs)
    if (type(logged) is events.HandDealt and type(produced) is events.HandDealt and logged.deck != produced.deck
            and dataclasses.replace(produced, deck=logged.deck) == logged):
        # the deck is the deal check's to judge; the replay goes on from the log's own
        produced = logged
    return produced


class ReplayDiffers(ValueError):
    """The log is not what the rules produce: the message names the event and the field."""


class Replay:
    """The state of a log replayed so far, and the deal, if any, taken from the log against the rules'."""

    def __init__(self, log: list, command_for):
        self.log = log
        self.command_for = command_for
        self.state = None
        #: (hand_no, version) of the current hand's deal when its deck is the log's, not the rules'
        self.own_deal: tuple[int, int] | None = None
        self.own_decks: list[int] = []

    def _note(self) -> str:
        if self.own_deal is None:
            return ""
        hand_no, version = self.own_deal
        return (f" (it follows hand {hand_no}'s deck as the log writes it, event {version}, which is not the "
                f"one the rules deal: see deal_{hand_no})")

    def take(self, at: int, produced: list, what: str) -> None:
        """Hold ``produced`` (what ``what`` gives) against the log from index ``at``; evolve the state."""
        recorded = self.log[at: at + len(produced)]
        accepted = [as_recorded(r, p) for r, p in zip(recorded, produced)]
        for k, (r, p) in enumerate(zip(recorded, accepted)):
            if r != p:
                raise ReplayDiffers(event_difference(at + k + 1, r, p) + f" (what {what} gives)" + self._note())
        if len(recorded) < len(produced):
            missing = type(produced[len(recorded)]).TYPE
            raise ReplayDiffers(f"the log ends at event {len(self.log)}, but {what} also gives {missing} "
                                f"as event {len(self.log) + 1}" + self._note())
        for k, (r, p) in enumerate(zip(recorded, produced)):
            if type(p) is events.HandDealt:
                self.own_deal = (r.hand_no, at + k + 1) if r.deck != p.deck else None
                if self.own_deal:
                    self.own_decks.append(r.hand_no)
        for e in accepted:
            self.state = game.evolve(self.state, e)

    def run(self, start: int) -> None:
        """Re-decide every event from index ``start`` on."""
        i = start
        log = self.log
        while i < len(log):
            found = self.command_for(log[i], log[i + 1] if i + 1 < len(log) else None)
            if found is None:
                raise ReplayDiffers(f"event {i + 1} ({type(log[i]).TYPE}) follows no command" + self._note())
            actor, command = found
            try:
                produced = game.decide(self.state, actor, command)
            except RulesError as err:
                raise ReplayDiffers(f"event {i + 1} ({type(log[i]).TYPE}): the rules refuse {command!r} "
                                    f"there: {err.message}" + self._note()) from None
            self.take(i, produced, repr(command))
            i += len(produced)
