"""What the workers do to games nobody moves: abandon the idle, expire the never started, deal
without late client seeds, end the games of bots alone that only draw."""

from __future__ import annotations

import logging

from service.games.core import GameCore
from service.rules import commands, events as ev, game
from service.store.errors import ConcurrencyError

log = logging.getLogger(__name__)


class GameUpkeep(GameCore):
    """The use cases of the sweeper and the bot jobs that end or unblock a game."""

    def abandon_if_idle(self, game_id: str, idle_after_s: float, now_ms: int) -> bool:
        """End the game with no winner if nobody has moved in it for ``idle_after_s``; True if it did.

        Idle is measured from the time of the game's latest event. The append expects the version
        that was measured, so a move that lands meanwhile wins and the game goes on.
        """
        state = self.state(game_id)
        if state.status not in ("waiting", "playing"):
            return False
        last = self.store.load(game_id, after=state.version - 1, upto=state.version)
        if not last:
            return False
        idle_ms = now_ms - last[-1].ts
        if idle_ms < idle_after_s * 1000:
            return False
        # someone moved meanwhile: the game is not idle
        return self._end_unless_moved(game_id, state, commands.AbandonGame(idle_ms // 1000))

    def expire_if_unstarted(self, game_id: str, after_s: float, now_ms: int) -> bool:
        """End the game with no winner if a seat is still free ``after_s`` after its creation; True if it did.

        The append expects the version that was read, so a seat claimed meanwhile wins.
        """
        state = self.state(game_id)
        if state.status == "over" or all(p is not None for p in state.players):
            return False
        first = self.store.load(game_id, upto=1)
        if not first:
            return False
        waited_ms = now_ms - first[0].ts
        if waited_ms < after_s * 1000:
            return False
        # a seat claimed meanwhile wins: the game may yet start
        return self._end_unless_moved(game_id, state, commands.ExpireGame(waited_ms // 1000))

    def _end_unless_moved(self, game_id: str, state, command) -> bool:
        """Append the server's ending ``command`` at the version read; False if the game moved meanwhile."""
        new_events = game.decide(state, None, command)
        try:
            new_state = self.repository.save(game_id, state, new_events).state
        except ConcurrencyError:
            return False
        self.after_append(game_id, new_state)  # the bots, the arena and the open games hear of it
        return True

    def close_client_seeds_if_due(self, game_id: str, now_ms: int) -> bool:
        """Deal without the client seeds still awaited once the game's ``client_seed_wait_s`` has
        run out; True if it did.

        The wait is measured from the time of the event that took the last seat (or created the
        game with every seat taken). The append expects the version that was measured, so a seed
        that lands meanwhile wins.
        """
        state = self.state(game_id)
        wait_s = state.options.get("client_seed_wait_s")
        if wait_s is None or not state.awaited_seeds or any(p is None for p in state.players):
            return False
        seated_at = None
        for r in self.store.load(game_id, upto=state.version):
            if isinstance(r.event, (ev.GameCreated, ev.SeatClaimed)):
                seated_at = r.ts
        if seated_at is None or now_ms - seated_at < wait_s * 1000:
            return False
        new_events = game.decide(state, None, commands.CloseClientSeeds((now_ms - seated_at) // 1000))
        try:
            new_state = self.repository.save(game_id, state, new_events).state
        except ConcurrencyError:
            return False
        self.after_append(game_id, new_state)
        return True

    def advice_given_at(self, game_id: str, version: int) -> bool:
        """Whether any advice was given at ``version`` of the game."""
        return any(r.version == version for r in self.advice.read(game_id, after=(version - 1, 1 << 30)))

    def end_drawn_out(self, game_id: str, state, last_ts: int | None, now_ms: int) -> bool:
        """End a game of built-in bots alone whose last hands were all drawn: abandoned, no winner; True if it did.

        ``state``: the log's state as the caller read it; the append expects its version, as any move.
        ``last_ts``: the time of its last event.
        The event records how many drawn hands the game ended on; the scores stand.
        """
        # Nothing else would end such a game.
        # Its bots keep moving, so the idle time of GINBOX_ABANDON_AFTER_S never runs.
        # Under options where a hand is almost always drawn, it redeals for ever.
        drawn = game.drawn_hands_in_a_row(state)
        idle_s = max(0, (now_ms - last_ts) // 1000) if last_ts else 0
        new_events = game.decide(state, None, commands.AbandonGame(int(idle_s), drawn))
        try:
            new_state = self.repository.save(game_id, state, new_events).state
        except ConcurrencyError:
            return False
        log.warning("game %s of bots alone abandoned after %d drawn hands in a row (GINBOX_ABANDON_DRAWN_HANDS)",
                    game_id, drawn)
        self.after_append(game_id, new_state)  # off the waiting set; a match's board moves on
        return True
