"""A bot's own stream: server-sent events of its games, turns, matches and challenges."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

from service.arena.bot_lists import BotLists
from service.arena.core import STREAM_READ


def bot_message(kind: str, data: dict, entry_id: str | None = None) -> str:
    """One message of a bot's stream: its ``type`` in the data too, as on the ``event:`` line."""
    shown = {**data, "type": kind}
    if kind == "your_turn":
        shown.setdefault("pending", False)
    head = f"id: {entry_id}\n" if entry_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(shown, separators=(',', ':'), sort_keys=True)}\n\n"


class BotStream(BotLists):
    """The use case ``stream`` (GET /bots/me/stream)."""

    def stream(self, name: str, after: str | None, once: bool = False,
               clock: Callable[[], float] = time.monotonic) -> Iterator[str]:
        """Server-sent events of the bot's stream after entry ``after`` (None or "0": from its first;
        else an id of the stream, STREAM_ID, as the route checks). A live stream (not ``once``)
        begins with a ``your_turn`` marked ``pending`` for each game that waits on the bot."""
        return self._sse(name, after or "0", once, clock)

    def _sse(self, name: str, after: str, once: bool, clock) -> Iterator[str]:
        deadline = clock() + self.stream_max_s
        yield ": connected\n\n"
        self._seen(name)
        if not once:
            # no id: line, so that Last-Event-ID stays the last entry of the stream read
            for turn in self.waiting_turns(name):
                yield bot_message("your_turn", turn)
        wait = None
        while True:
            entries = self.store.read_stream(name, after, wait_s=wait, count=STREAM_READ)
            for entry_id, kind, data in entries:
                after = entry_id
                yield bot_message(kind, data, entry_id)
            if once and len(entries) == STREAM_READ and clock() < deadline:
                continue  # the past is read in batches: once=1 ends only when it is all sent
            if once or clock() >= deadline:
                return
            if not entries:
                if wait is not None:
                    yield ": keep-alive\n\n"
                wait = max(0.001, min(self.keepalive_s, deadline - clock()))
