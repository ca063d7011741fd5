"""The live stream of a game: server-sent events, redacted for the reader, with advice and the seal."""

from __future__ import annotations

import json
import time
from typing import Callable, Iterator

from service.games.core import GAME_ENDS, GameCore
from service.games.reads import advice_event, log_entry
from service.rules import events as ev, game, views


class GameStreams(GameCore):
    """The use case ``stream`` (GET /games/{id}/stream)."""

    def stream(self, game_id: str, seat: int | None, after: int, once: bool = False,
               clock: Callable[[], float] = time.monotonic) -> Iterator[str]:
        """Server-sent events for the caller from version ``after`` on (validated before the first byte)."""
        current = self.state(game_id)
        after = max(0, min(after, current.version))
        state = self.repository.load_state(game_id, upto=after) if after > 0 else None
        # a board of a match in play is sealed: its events never reveal its secrets, not even the
        # seed that the event ending the game carries (asked again when the game's end is sent,
        # see _sse)
        sealed = self.sealed(game_id)
        full = current.status == "over" and not sealed
        return self._sse(game_id, seat, after, state, full, once, clock, sealed)

    def _sse(self, game_id, seat, after, state, full, once, clock, sealed=False) -> Iterator[str]:
        deadline = clock() + self.stream_max_s
        yield ": connected\n\n"
        last_write = clock()
        records = self.store.load(game_id, after=after)
        # advice given at the version the stream starts from, or later (a client resuming from
        # Last-Event-ID N may see again what was given at N: (version, seq) tells them apart)
        advice_after = (after - 1, 1 << 30) if after > 0 else None
        while True:
            if sealed and records and isinstance(records[-1].event, GAME_ENDS):
                # the seal, asked when the stream began, is asked again as the game's end is sent:
                # a match ends only once all its games are over, so this game's may be the end
                # of the match's last game, read after the match recorded it. Lifted, the batch
                # is sent as a fresh stream of the finished game would send it: in full
                sealed = self.sealed(game_id)
                full = not sealed
            for r in records:
                shown = ev.encode(r.event) if full else views.view_event(r.event, seat, state, sealed=sealed)
                state = game.evolve(state, r.event)
                after = r.version
                if shown is not None:
                    data = json.dumps(log_entry(r, shown), separators=(",", ":"))
                    yield f"id: {r.version}\nevent: {shown['type']}\ndata: {data}\n\n"
                    last_write = clock()
            watch_advice = (not full and state is not None and state.variant == "three-hand"
                            and state.status == "playing" and views.sees_advice(state, seat))
            if watch_advice:
                for a in self.advice.read(game_id, after=advice_after):
                    advice_after = (a.version, a.seq)
                    if seat in (a.entry["advisor"], a.entry["captain"]):
                        # no id: line, so that Last-Event-ID stays the game's version
                        data = json.dumps(advice_event(a), separators=(",", ":"))
                        yield f"event: advice_given\ndata: {data}\n\n"
                        last_write = clock()
            finished = state is not None and state.status == "over"
            if finished and sealed:
                # what the stream sent of the game's end held its secrets back (its match is in
                # play): the last message says so, without an id (Last-Event-ID stays the
                # game's version), so that the client reads the game again once the match is over
                data = json.dumps(self._sealed_event(game_id, state), separators=(",", ":"))
                yield f"event: sealed\ndata: {data}\n\n"
            if once or finished or clock() >= deadline:
                return
            wait = self.advice_poll_s if watch_advice else self.keepalive_s
            records = self.store.wait_for_events(game_id, after, min(wait, max(0.0, deadline - clock())))
            if not records and clock() - last_write >= self.keepalive_s:
                yield ": keep-alive\n\n"
                last_write = clock()

    @staticmethod
    def _sealed_event(game_id: str, state) -> dict:
        """The data of the ``sealed`` message that ends the stream of a board over while its match
        is in play (every seat of a match's game names the match)."""
        match_id = next((p["match"] for p in state.players if isinstance(p, dict) and p.get("match")), None)
        return {"type": "sealed", "at_version": state.version, "data": {"game_id": game_id, "match_id": match_id}}
