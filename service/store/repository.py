"""GameRepository: a game's state from the latest snapshot plus the events after it.

The log is the truth; snapshots only shorten the replay. A snapshot that cannot be read (say,
written by an older engine) is ignored and the game is replayed from its first event.
"""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

from service.rules import game
from service.store.base import EventStore
from service.store.errors import UnknownGame

log = logging.getLogger(__name__)


class Saved(NamedTuple):
    """The outcome of GameRepository.save."""

    version: int
    state: Any  # GameState after ``version``


class GameRepository:
    """Loads and saves game states over an EventStore, with a snapshot every so many events."""

    def __init__(self, store: EventStore, snapshot_every: int = 50):
        if snapshot_every < 1:
            raise ValueError("snapshot_every must be >= 1")
        self.store = store
        self.snapshot_every = snapshot_every

    def load_state(self, game_id: str, upto: int | None = None):
        """The state after event ``upto`` (the latest when None); UnknownGame if there is none."""
        state, after = self._from_snapshot(game_id, upto)
        records = self.store.load(game_id, after=after, upto=upto)
        for record in records:
            state = game.evolve(state, record.event)
        if state is None:
            raise UnknownGame(game_id)
        if len(records) >= self.snapshot_every:
            # whoever appended did not leave a snapshot here: spare the next reader this replay
            self._snapshot(game_id, state)
        return state

    def save(self, game_id: str, state_before, events: list, idempotency_key: str | None = None, *,
             fingerprint: str | None = None) -> Saved:
        """Append ``events`` decided on ``state_before`` (None for a new game); the state after.

        Raises what EventStore.append raises (ConcurrencyError, IdempotencyConflict). Writes a
        snapshot when the version crosses a multiple of ``snapshot_every``.
        """
        expected = state_before.version if state_before is not None else 0
        state = state_before
        for event in events:
            state = game.evolve(state, event)
        version = self.store.append(
            game_id, events, expected, idempotency_key,
            fingerprint=fingerprint, meta={"status": state.status, "variant": state.variant},
        )
        if version != expected + len(events):
            # the key had been used: these events were not appended, the first request's were
            return Saved(version, self.load_state(game_id, upto=version))
        if expected // self.snapshot_every != version // self.snapshot_every:
            self._snapshot(game_id, state)
        return Saved(version, state)

    def _from_snapshot(self, game_id: str, upto: int | None):
        snapshot = self.store.latest_snapshot(game_id, upto)
        if snapshot is None:
            return None, 0
        version, data = snapshot
        try:
            state = game.state_from_dict(data)
        except Exception:  # noqa: BLE001 (any unreadable snapshot: the log still has everything)
            log.warning("snapshot %d of game %s is unreadable; replaying the log", version, game_id, exc_info=True)
            return None, 0
        if state.version != version:
            log.warning("snapshot %d of game %s holds version %d; replaying the log", version, game_id, state.version)
            return None, 0
        return state, version

    def _snapshot(self, game_id: str, state) -> None:
        try:
            self.store.save_snapshot(game_id, state.version, game.state_to_dict(state))
        except Exception:  # noqa: BLE001 (a snapshot is an optimisation; its failure costs only time)
            log.warning("snapshot of game %s at version %d not saved", game_id, state.version, exc_info=True)
