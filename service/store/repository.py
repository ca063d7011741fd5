"""GameRepository: a game's state from the latest snapshot plus the events after it.

The log is the truth; snapshots only shorten the replay.
A snapshot that cannot be read (say, written by an older engine) is ignored, and the game is
replayed from its first event.
Each repository also keeps the states it last saw in memory (:class:`StateCache`).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Any, NamedTuple

from service.rules import game, views
from service.store.base import EventStore, SnapshotStore
from service.store.errors import UnknownGame

log = logging.getLogger(__name__)

#: games whose states a repository keeps in memory, and states kept per game (the newest serves
#: moves and views; the others, time travel): some 10 KB per game, 10 MB per process at most
CACHED_GAMES = 1000
CACHED_STATES_PER_GAME = 3


class Saved(NamedTuple):
    """The outcome of GameRepository.save."""

    version: int
    state: Any  # GameState after ``version``
    #: the save was the replay of an earlier one with its idempotency key: nothing was appended,
    #: and ``state`` is the log's, after that first save
    replayed: bool = False


class StateCache:
    """Recent states of recently used games by (game id, version); the least recently used game goes first.

    Thread-safe (one lock around dict operations only). States are immutable, so one state
    object may be handed to many readers.
    """

    def __init__(self, max_games: int = CACHED_GAMES, per_game: int = CACHED_STATES_PER_GAME):
        if max_games < 1 or per_game < 1:
            raise ValueError("a state cache holds at least one game and one state per game")
        self.max_games = max_games
        self.per_game = per_game
        self._games: OrderedDict[str, dict[int, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str, upto: int | None = None):
        """The cached state at version ``upto``, else the newest one before it (any when None); None if none."""
        with self._lock:
            states = self._games.get(game_id)
            if not states:
                return None
            self._games.move_to_end(game_id)
            if upto is None:
                return states[max(states)]
            if upto in states:
                return states[upto]
            best = max((v for v in states if v < upto), default=None)
            return None if best is None else states[best]

    def put(self, game_id: str, state) -> None:
        """Remember ``state`` (a state the log recorded) under its version."""
        with self._lock:
            states = self._games.get(game_id)
            if states is None:
                states = self._games[game_id] = {}
                while len(self._games) > self.max_games:
                    self._games.popitem(last=False)
            else:
                self._games.move_to_end(game_id)
            states[state.version] = state
            while len(states) > self.per_game:
                del states[min(states)]

    def forget(self, game_id: str) -> None:
        """Drop every state of the game."""
        with self._lock:
            self._games.pop(game_id, None)


class GameRepository:
    """Loads and saves game states over an EventStore, with a snapshot every so many events."""

    def __init__(self, store: EventStore, snapshots: SnapshotStore, snapshot_every: int = 50,
                 cache: StateCache | None = None):
        if snapshot_every < 1:
            raise ValueError("snapshot_every must be >= 1")
        self.store = store
        self.snapshots = snapshots
        self.snapshot_every = snapshot_every
        self.cache = cache if cache is not None else StateCache()

    def load_state(self, game_id: str, upto: int | None = None):
        """The state after event ``upto`` (the latest when None); UnknownGame if there is none."""
        state, records = self._from_cache(game_id, upto)
        if state is None:
            state, after = self._from_snapshot(game_id, upto)
            records = self.store.load(game_id, after=after, upto=upto)
        for record in records:
            state = game.evolve(state, record.event)
        if state is None:
            raise UnknownGame(game_id)
        if upto is None and len(records) >= self.snapshot_every:
            # whoever appended did not leave a snapshot here: spare the next reader this replay (a
            # look back at an older version leaves none: only the newest few are kept anyway)
            self._snapshot(game_id, state)
        self.cache.put(game_id, state)
        return state

    def recent_state(self, game_id: str):
        """The newest state of the game this repository holds, without reading the log (None: none).

        It may be behind the log: only for a decision whose append, expecting its version, checks it.
        """
        return self.cache.get(game_id)

    def _from_cache(self, game_id: str, upto: int | None):
        """(a cached state, the events after it up to ``upto``), or (None, []) when the cache cannot serve."""
        # The state after version v of a game never changes, so a cached state is only ever behind.
        # Reading the latest state asks the log for the events after the cached version.
        # That is the same single read that checks that the log still holds that version.
        # A cache hit saves the snapshot read and the replay, never the look at the log.
        cached = self.cache.get(game_id, upto)
        if cached is None:
            return None, []
        if upto is None:
            records = self.store.tail(game_id, cached.version)
            if records is None:
                # the log no longer holds the version we saw: what we remember is not the log's
                log.warning("game %s no longer holds version %d; its cached states are dropped",
                            game_id, cached.version)
                self.cache.forget(game_id)
                return None, []
            return cached, records
        if cached.version == upto:
            return cached, []
        if upto - cached.version >= self.snapshot_every:
            return None, []  # a snapshot may be nearer
        return cached, self.store.load(game_id, after=cached.version, upto=upto)

    def save(self, game_id: str, state_before, events: list, idempotency_key: str | None = None, *,
             fingerprint: str | None = None, meta: dict | None = None) -> Saved:
        """Append ``events`` decided on ``state_before`` (None for a new game); the state after.

        Raises what EventStore.append raises (ConcurrencyError, IdempotencyConflict). Writes a
        snapshot when the version crosses a multiple of ``snapshot_every``, and once the game is
        over keeps the final state's only. ``meta`` adds to the
        status, variant and summary (``views.summary_of``) the index is given (e.g. ``created``).
        """
        expected = state_before.version if state_before is not None else 0
        state = state_before
        for event in events:
            state = game.evolve(state, event)
        version, replayed = self.store.append_outcome(
            game_id, events, expected, idempotency_key,
            fingerprint=fingerprint,
            meta={"status": state.status, "variant": state.variant, "summary": views.summary_of(state), **(meta or {})},
        )
        if replayed:
            # the key had been used: these events were not appended, the first request's were
            # (as many as these, or not: a creation's have a seed of their own)
            return Saved(version, self.load_state(game_id, upto=version), replayed=True)
        if idempotency_key is None:
            # with a key, a copy of this request recorded first also answers this version, and its
            # events need not be ours (a policy on a clock may choose differently): only the log knows
            self.cache.put(game_id, state)
        if state.status == "over":
            self._keep_final_snapshot_only(game_id, state)
        elif expected // self.snapshot_every != version // self.snapshot_every:
            self._snapshot(game_id, state)
        return Saved(version, state)

    def _from_snapshot(self, game_id: str, upto: int | None):
        snapshot = self.snapshots.latest(game_id, upto)
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
        if state.status == "over":
            return  # a finished game keeps its final state only (see _keep_final_snapshot_only)
        try:
            self.snapshots.save(game_id, state.version, game.state_to_dict(state))
        except Exception:  # noqa: BLE001 (a snapshot is an optimisation; its failure costs only time)
            log.warning("snapshot of game %s at version %d not saved", game_id, state.version, exc_info=True)

    def _keep_final_snapshot_only(self, game_id: str, state) -> None:
        """A finished game keeps one snapshot, its final state: it is read far less than a game in
        play, and its earlier states are a replay of its log away."""
        try:
            # keep=1: the final state is the newest, and every other snapshot goes in the same step
            self.snapshots.save(game_id, state.version, game.state_to_dict(state), keep=1)
        except Exception:  # noqa: BLE001 (a snapshot is an optimisation: its loss costs only time)
            log.warning("final snapshot of game %s not kept", game_id, exc_info=True)
