"""Importing a game: an OpenSpiel record stored as a finished game of this server (docs: OPENSPIEL.md)."""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from typing import Any

from schemas.common import MAX_NAME, NAME_PATTERN
from service.errors import IdempotencyKeyReused
from service.games.core import GameCore
from service.rules.errors import invalid
from service.rules.names import BOT_POLICY_NAMES
from service.rules.openspiel import from_record
from service.store.creations import Made
from service.store.errors import IdempotencyConflict

#: the bounds of a record sent over HTTP (openapi.yaml's OpenSpielImport): every record within them fits in
#: the body limit's 64 KiB; OpenSpiel's gin_rummy itself ends a game within 300 actions.
#: ``ginbox convert`` reads longer records offline.
MAX_HANDS, MAX_ACTIONS = 40, 300
#: a player's name, as POST /games takes it (schemas.common.Name)
_NAME = re.compile(NAME_PATTERN)


def _player(seat: int, p: dict) -> dict:
    """A record's player as the server keeps it: its name, and the built-in bot it names, if any.

    A bot account is not kept: it did not play this game on this server, and is told nothing of it.
    """
    name = p.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME or not _NAME.search(name):
        raise invalid("openspiel_record_invalid", f"seat {seat}'s name must be 1 to {MAX_NAME} characters, at "
                                                  "least one visible, none a control or format character")
    # kept as POST /games keeps a name: NFC-normalised, without the whitespace around it
    name = unicodedata.normalize("NFC", name).strip()
    kept = {"name": name}
    if p.get("bot") in BOT_POLICY_NAMES:
        kept["bot"] = p["bot"]
    return kept


def _check_bounds(doc: Any) -> None:
    """RulesError ``openspiel_record_invalid`` for a record beyond MAX_HANDS or MAX_ACTIONS."""
    hands = doc.get("hands") if isinstance(doc, dict) and "hands" in doc else None
    if isinstance(hands, list) and len(hands) > MAX_HANDS:
        raise invalid("openspiel_record_invalid", f"a record imported over HTTP holds at most {MAX_HANDS} hands, "
                                                  f"not {len(hands)} (ginbox convert reads longer records)")
    if isinstance(hands, list):
        games = [h.get("actions") for h in hands if isinstance(h, dict)]
    else:
        games = [doc.get("actions") if isinstance(doc, dict) else doc]
    longest = max((len(a) for a in games if isinstance(a, list)), default=0)
    if longest > MAX_ACTIONS:
        raise invalid("openspiel_record_invalid", f"a hand imported over HTTP takes at most {MAX_ACTIONS} actions, "
                                                  f"as OpenSpiel's gin_rummy does, not {longest}")


class GameImport(GameCore):
    """The use case ``import_record`` (POST /games/import)."""

    def import_record(self, doc: Any, made: Made | None = None) -> dict:
        """Store an OpenSpiel record's game as a new finished game: {game_id, notes, view}.

        The record converts as ``ginbox convert`` converts it (service.rules.openspiel.from_record).
        A record that does not convert raises its RulesError, and nothing is written.
        ``made``: the request's Idempotency-Key made it; a retry then answers as the first did.
        """
        _check_bounds(doc)
        notes: list[str] = []
        log = from_record(doc, notes)
        created = log[0]
        players = tuple(_player(seat, p) for seat, p in enumerate(created.players))
        dropped = [f"seat {seat}: its bot account {p['account']!r} is not named here, since it did not play "
                   "this game on this server" for seat, p in enumerate(created.players)
                   if isinstance(p.get("account"), str)]
        # The events after game_created hold seats, never names: only the first event changes.
        log = [dataclasses.replace(created, players=players), *log[1:]]
        game_id = made.game_id() if made is not None else self.id_factory()
        key, fingerprint = (made.log_key, made.fingerprint) if made is not None else (None, None)
        if made is not None and self._landed(game_id, made) is not None:
            # the first request with this key stored the game, and its answer was lost: this is it
            state = self.state(game_id)
        else:
            try:
                saved = self.repository.save(game_id, None, log, key, fingerprint=fingerprint)
            except IdempotencyConflict as err:
                raise IdempotencyKeyReused() from err
            state = saved.state
            if saved.replayed:
                made.found = True
        # the scheduler hears of a finished game (it schedules nothing), the archive queues it
        self.after_append(game_id, state)
        return {"game_id": game_id, "notes": notes + dropped, "view": self.render(game_id, state, None)}
