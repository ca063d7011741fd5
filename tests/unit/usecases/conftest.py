"""The use cases on the in-memory stores: GameService and ArenaService as the composition root
builds them on the stores' twins (``composition.build_in_memory``), with no Redis, no web
framework and no job queue.

``make_use_cases(**settings)`` is the one place these tests build the two services. The bot
scheduler only records what it was told (``scheduled``): a test that needs a bot's move plays it
itself with ``play_for_seat``, as the bot worker would. Every store and both services read one clock that the test moves
(``clock``), so that expiries are a step of the test, not a wait.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.clocks import ManualClock

from service.arena import ArenaService
from service.composition import build_in_memory
from service.config import Settings
from service.games import GameService


@dataclass
class UseCases:
    """The two services, the stores under them and what the bot scheduler was told."""

    games: GameService
    arena: ArenaService
    clock: ManualClock
    settings: Settings
    stores: dict[str, Any]
    #: (game id, version) of every append the bot scheduler was told of, in order
    scheduled: list[tuple[str, int]] = field(default_factory=list)


def build_use_cases(**overrides) -> UseCases:
    """Both services over fresh in-memory stores; ``overrides``: Settings fields (caps, prefix ...)."""
    settings = dataclasses.replace(Settings(), **overrides)
    clock = ManualClock()
    scheduled: list[tuple[str, int]] = []

    def bot_scheduler(game_id: str, state, *, whole: bool = False) -> None:
        scheduled.append((game_id, state.version))

    built = build_in_memory(settings, scheduler=bot_scheduler, clock_ms=clock)
    stores = {"events": built.store, "index": built.index, "tokens": built.tokens, "advice": built.advice,
              "bot_games": built.bot_games, "matches": built.matches, "arena": built.arena_store}
    return UseCases(built.games, built.arena, clock, settings, stores, scheduled)


@pytest.fixture
def make_use_cases():
    """``make(**settings)``: both services over fresh in-memory stores."""
    return build_use_cases


@pytest.fixture
def use_cases() -> UseCases:
    """Both services over fresh in-memory stores, with the default settings."""
    return build_use_cases()


@pytest.fixture
def games(use_cases) -> GameService:
    return use_cases.games


@pytest.fixture
def arena(use_cases) -> ArenaService:
    return use_cases.arena
