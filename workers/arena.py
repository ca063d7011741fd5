"""Play bots against each other in-process (no Redis): for benchmarks and tests.

Each seat's policy gets exactly what a bot gets in production: ``views.view_state`` for its
seat and its own redacted events (``views.view_event``) of the game so far.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from service.rules import game as G
from service.rules import views


@dataclass
class Table:
    """A game in progress with each seat's own log of the events it was shown."""

    state: G.GameState
    seen: list[list[dict]]
    log: list = field(default_factory=list)

    @classmethod
    def start(cls, spec: G.GameSpec) -> "Table":
        events = G.start(spec)
        table = cls(state=None, seen=[[] for _ in spec.players])  # type: ignore[arg-type]
        table.record(events)
        return table

    def record(self, events: list) -> None:
        for e in events:
            for seat, seen in enumerate(self.seen):
                shown = views.view_event(e, seat, self.state)
                if shown is not None:
                    seen.append(shown)
            self.state = G.evolve(self.state, e)
            self.log.append(e)

    def play(self, seat: int, command) -> None:
        self.record(G.decide(self.state, seat, command))


def play_hand(
    deck: list[str],
    first_dealer: int,
    policies: list,
    rng: random.Random,
    options: dict | None = None,
    timings: dict | None = None,
    seed: bytes = b"arena",
) -> dict:
    """Play one gin-rami hand from ``deck``; return the hand's result (engine ``hand_results`` entry).

    ``timings`` (policy name -> list of seconds) collects each move's thinking time.
    """
    spec = G.GameSpec(
        variant="gin-rami",
        players=[{"name": f"seat{i}", "bot": p.name} for i, p in enumerate(policies)],
        options={"target_score": 1, **(options or {})},
        seed=seed,
        decks=[deck],
        first_dealer=first_dealer,
    )
    table = Table.start(spec)
    while table.state.status == "playing" and table.state.hand_no == 1:
        seat = table.state.to_act[0]
        view = views.view_state(table.state, seat)
        policy = policies[seat]
        t0 = time.perf_counter()
        command = policy.choose(view, rng, table.seen[seat])
        if timings is not None:
            timings.setdefault(policy.name, []).append(time.perf_counter() - t0)
        table.play(seat, command)
    return dict(table.state.results[0])
