"""The use cases on the in-memory stores: GameService and ArenaService wired as composition.build
wires them, with no Redis, no web framework and no job queue.

``make_use_cases(**settings)`` is the one place these tests build the two services (their
constructors will change; nothing else here calls them). The bot scheduler only records what it
was told (``scheduled``): a test that needs a bot's move plays it itself with ``play_for_seat``,
as the bot worker would. Every store and both services read one clock that the test moves
(``clock``), so that expiries are a step of the test, not a wait.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.clocks import ManualClock

from service.arena import ArenaService
from service.config import Settings
from service.games import GameLimits, GameService
from service.rules.duplicate import MatchCodec
from service.store.advice import InMemoryAdviceLog
from service.store.bot_games import InMemoryBotGames
from service.store.memory import InMemoryEventStore, InMemorySnapshotStore
from service.store.memory_arena import InMemoryArenaStore
from service.store.repository import GameRepository
from service.store.tokens import InMemoryTokenStore


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

    store = InMemoryEventStore(clock=clock)
    index = store.index
    tokens = InMemoryTokenStore(settings.key_prefix)
    advice = InMemoryAdviceLog(store, clock=clock)
    bot_games = InMemoryBotGames(index, settings.key_prefix)
    keepalive_s = float(settings.extra.get("stream_keepalive_s", 5.0))
    stream_max_s = float(settings.extra.get("stream_max_s", 300.0))
    games = GameService(
        store,
        GameRepository(store, InMemorySnapshotStore(store), settings.snapshot_every),
        tokens,
        index=index,
        scheduler=bot_scheduler,
        advice=advice,
        bot_games=bot_games,
        limits=GameLimits(keepalive_s=keepalive_s, stream_max_s=stream_max_s,
                          bot_games_per_caller=settings.bot_games_per_caller,
                          bot_games_in_play=settings.bot_games_in_play),
        clock_ms=clock,
    )
    # composition.build_arena: the matches' own log, apart from the games'
    matches = InMemoryEventStore(codec=MatchCodec, clock=clock)
    arena_store = InMemoryArenaStore(settings.key_prefix, clock=clock)
    arena = ArenaService(arena_store, matches, games, clock_ms=clock,
                         keepalive_s=keepalive_s, stream_max_s=stream_max_s,
                         matches_per_caller=settings.matches_per_caller, matches_in_play=settings.matches_in_play,
                         challenges_per_bot=settings.challenges_per_bot,
                         challenges_per_challenger=settings.challenges_per_challenger)
    # composition.build: the arena is made after the games, then handed to them
    games.join_arena(arena)
    stores = {"events": store, "index": index, "tokens": tokens, "advice": advice, "bot_games": bot_games,
              "matches": matches, "arena": arena_store}
    return UseCases(games, arena, clock, settings, stores, scheduled)


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
