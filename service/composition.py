"""The one place that builds what a process runs on, all from ``Settings``.

Each kind of process gets one typed container.
``ApiComponents`` is an API process's (``service.app.create_app``).
``WorkerComponents`` is a bot worker's (``workers.runner``).
``InMemoryComponents`` is the use-case tests': the same services on the stores' in-memory twins.
"""

# What a process runs on: connections, store, repository, tokens, advice log,
# the bot queues (turns, board games) and scheduler, the rate limiter and the service layer.
# Nothing connects to Redis at import time.

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

from redis import Redis
from rq import Queue

from service.arena import ArenaService
from service.arena.core import TournamentLimits
from service.bots import BotScheduler, bot_queue
from service.config import Settings
from service.connections import redis_client, stream_wait_client
from service.games import GameLimits, GameService
from service.games.analysis import AnalysisLimits, GameAnalyses, queue_analysis
from service.games.archive import GameArchives, queue_archive
from service.idempotency import CreationIdempotency
from service.ratelimit import DAY_S, HOUR_S, WINDOW_S, RateLimiter, TokenCheck
from service.ratelimit.memory import MemoryGuard
from service.rules.duplicate import MatchCodec
from service.rules.tournament import TournamentCodec
from service.analysis import ANALYSIS_VERSION
from service.store.analyses import InMemoryAnalyses, RedisAnalyses
from service.store.advice import AdviceLog, InMemoryAdviceLog, RedisAdviceLog
from service.store.arena import RedisArenaStore
from service.store.base import EventStore, GameIndex
from service.store.bot_games import InMemoryBotGames, RedisBotGames
from service.store.creations import CreationRecords
from service.store.memory import InMemoryEventStore, InMemorySnapshotStore
from service.store.memory_arena import InMemoryArenaStore
from service.store.redis_index import RedisGameIndex
from service.store.redis_snapshots import RedisSnapshotStore
from service.store.redis_store import RedisEventStore
from service.store.repository import GameRepository
from service.store.stream_places import StreamPlaces
from service.store.tokens import InMemoryTokenStore, TokenStore
from service.store.tournaments import InMemoryTournaments, RedisTournaments

#: RQ's worker TTL (seconds). An idle RQ worker blocks on the queue (BLPOP) for
#: ``worker_ttl - 15`` seconds at a time (rq 2.x ``Worker.dequeue_timeout``: 405 s with its
#: default TTL of 420) and expects its connection's socket timeout to be at least that plus 10 s
#: (``Worker.connection_timeout``). A blocking read longer than the socket timeout ends every idle
#: spell in "Redis connection timeout, quitting..." and a restart of the loop. 20 s gives blocking
#: reads of 5 s; the worker's key then expires 80 s (TTL + 60) after its last heartbeat.
WORKER_TTL_S = 20
#: socket timeout of the worker's queue connection: RQ's ``connection_timeout`` for
#: ``WORKER_TTL_S`` (5 s read + 10 s), so every blocking read returns before the socket gives up,
#: RQ leaves the connection's settings alone, and a Redis that hangs still fails a command within 15 s
QUEUE_SOCKET_TIMEOUT_S = (WORKER_TTL_S - 15) + 10
#: the least socket timeout of an API process's queue connection (it only enqueues: no blocking read)
ENQUEUE_SOCKET_TIMEOUT_S = 10
#: how long a live stream waits for a connection of the streams' pool when all are taken (they
#: are as many as the process's GINBOX_CONNECTIONS, so only a process that serves more waits)
STREAM_POOL_TIMEOUT_S = 10.0


def queue_url(settings: Settings) -> str:
    """The Redis that holds the job queue: RQ_REDIS_URL, else REDIS_URL."""
    return settings.rq_redis_url or settings.redis_url


def queue_connection(settings: Settings, *, worker: bool = False):
    """A connection to the job queue's Redis: a worker's waits on the queue, an API process's only enqueues."""
    least = QUEUE_SOCKET_TIMEOUT_S if worker else ENQUEUE_SOCKET_TIMEOUT_S
    return redis_client(queue_url(settings), timeout_s=max(settings.redis_timeout_s, least))


def scrape_connection(settings: Settings, redis):
    """The connection /metrics reads the queue's gauges through: ``redis`` unless the queue has a Redis of its own."""
    if settings.rq_redis_url and settings.rq_redis_url != settings.redis_url:
        return redis_client(settings.rq_redis_url, settings.redis_timeout_s)
    return redis


def make_bot_scheduler(settings: Settings, connection=None) -> BotScheduler:
    """The scheduler for an API or worker process; ``connection`` defaults to the queue's Redis.

    Turn jobs go to the turn queue (``queue_name``), whole board games to the board queue
    (``board_queue``): a board game may take minutes, and no bot's turn waits behind it.
    """
    if connection is None:
        connection = queue_connection(settings)
    return BotScheduler(bot_queue(connection, settings.queue_name), settings.key_prefix,
                        board_queue=bot_queue(connection, settings.board_queue))


@dataclass
class Parts:
    """What every kind of process holds: the settings, the games' stores and the two services."""

    settings: Settings
    store: EventStore
    index: GameIndex
    repository: GameRepository
    tokens: TokenStore | InMemoryTokenStore
    advice: AdviceLog
    games: GameService
    #: bot accounts, their streams, matches, ratings and challenges
    arena: ArenaService
    #: the games' decision analyses: asked for, queued on the analysis queue, read back
    analyses: GameAnalyses
    #: archiving finished games (the archive queue's job, ``ginbox archive``)
    archives: GameArchives


@dataclass
class ApiComponents(Parts):
    """What an API process runs on (``current_app.extensions["ginbox"]``)."""

    redis: Redis
    #: the bot scheduler the games call after each append (the one owner of the queues and the waiting set)
    scheduler: Callable[..., None]
    #: the request limits shared by every API process
    limiter: RateLimiter
    #: whether a request's token is one the server issued (whom the rate limit counts it against)
    token_check: TokenCheck
    #: the connection /metrics reads the bot queue's gauges through
    queue_redis: Redis
    #: the creations under an Idempotency-Key, over their sealed records
    creations: CreationIdempotency
    #: the server's secret as 32 bytes, read at its first use (service.store.creations.server_pepper)
    pepper: Callable[[], bytes]
    #: the live streams each client holds open, counted for every API process
    stream_places: StreamPlaces
    #: whether Redis is too full to take new games (GINBOX_MEMORY_GUARD)
    memory_guard: MemoryGuard


@dataclass
class WorkerComponents(Parts):
    """What a bot worker runs on: the jobs' context (workers.jobs.context)."""

    redis: Redis
    #: the turn queue (bot turns, turn clocks)
    queue: Queue
    #: the board queue (whole board games of matches, and the turns of games of built-in bots alone)
    board_queue: Queue
    #: the analysis queue (decision analyses of finished games)
    analysis_queue: Queue
    #: the archive queue (finished games to archive)
    archive_queue: Queue
    #: the bot scheduler (service.bots.BotScheduler): the waiting set, a lost job enqueued again
    scheduler: BotScheduler
    #: what the worker measured last (the expert's thinking time ...)
    stats: dict = field(default_factory=dict)
    #: set when the worker is asked to stop (SIGTERM, Ctrl-C): a board game's job stops between two
    #: turns instead of playing its game to the end (workers/arena_jobs.py)
    stopping: threading.Event = field(default_factory=threading.Event)


@dataclass
class InMemoryComponents(Parts):
    """The services on the stores' in-memory twins, for the use-case tests (no Redis, no queue)."""

    bot_games: InMemoryBotGames
    matches: InMemoryEventStore
    arena_store: InMemoryArenaStore


def _limits(settings: Settings) -> GameLimits:
    return GameLimits(keepalive_s=float(settings.extra.get("stream_keepalive_s", 5.0)),
                      stream_max_s=float(settings.extra.get("stream_max_s", 300.0)),
                      bot_games_per_caller=settings.bot_games_per_caller,
                      bot_games_in_play=settings.bot_games_in_play)


def _arena(settings: Settings, arena_store, matches, games: GameService, clock_ms=None, *,
           tournaments: dict | None = None) -> ArenaService:
    """The arena over its store, the matches' own log and the games, then handed to the games (which
    tell it of every append and ask it of bot accounts and sealed boards).

    ``tournaments``: the tournaments' log and keys (tournament_log, tournament_keys), else in-memory twins."""
    limits = _limits(settings)
    arena = ArenaService(arena_store, matches, games, keepalive_s=limits.keepalive_s, stream_max_s=limits.stream_max_s,
                         matches_per_caller=settings.matches_per_caller, matches_in_play=settings.matches_in_play,
                         challenges_per_bot=settings.challenges_per_bot,
                         challenges_per_challenger=settings.challenges_per_challenger,
                         tournament_limits=TournamentLimits(entries=settings.tournament_entries,
                                                            rounds=settings.tournament_rounds,
                                                            boards=settings.tournament_boards,
                                                            in_play=settings.tournaments_in_play),
                         **(tournaments or {}),
                         **({"clock_ms": clock_ms} if clock_ms is not None else {}))
    games.join_arena(arena)
    return arena


def _analysis_limits(settings: Settings) -> AnalysisLimits:
    return AnalysisLimits(per_caller=settings.analyses_per_caller, queued=settings.analyses_queued,
                          samples=settings.analysis_samples, processes=settings.analysis_processes,
                          progress_every=int(settings.extra.get("analysis_progress_every", 10)),
                          stale_s=float(settings.extra.get("analysis_stale_s", 120.0)),
                          stream_poll_s=float(settings.extra.get("analysis_stream_poll_s", 0.5)))


def analysis_queue(connection, settings: Settings) -> Queue:
    """The queue of the decision analyses (GINBOX_ANALYSIS_QUEUE): apart from the bots', so that no
    analysis delays a bot's turn."""
    return bot_queue(connection, settings.analysis_queue)


def archive_queue(connection, settings: Settings) -> Queue:
    """The queue of the jobs that archive finished games (GINBOX_ARCHIVE_QUEUE): light jobs nobody waits on."""
    return bot_queue(connection, settings.archive_queue)


def _log_prefixes(settings: Settings) -> dict[str, str]:
    """The key prefix of each kind of log: games, matches and tournaments, each listed by an index."""
    # under the service's own prefix (a Redis ACL of `~<prefix>:*` covers it), apart from the games' keys
    return {"games": settings.key_prefix, "matches": f"{settings.key_prefix}:match",
            "tournaments": f"{settings.key_prefix}:tournament"}


def game_indexes(settings: Settings) -> dict[str, RedisGameIndex]:
    """The listing index of each kind of log (``ginbox repair-index`` rebuilds them)."""
    redis = redis_client(settings.redis_url, settings.redis_timeout_s)
    return {kind: RedisGameIndex(redis, prefix) for kind, prefix in _log_prefixes(settings).items()}


def _redis_games(settings: Settings, redis: Redis, waits, scheduler, *, worker: bool,
                 analyses_queue: Queue | None = None, archives_queue: Queue | None = None) -> dict:
    """The games' Redis stores, the two services over them: the fields of ``Parts``."""
    index = RedisGameIndex(redis, settings.key_prefix)
    store = RedisEventStore(redis, prefix=settings.key_prefix, index=index, waits=waits)
    repository = GameRepository(store, RedisSnapshotStore(redis, settings.key_prefix), settings.snapshot_every)
    tokens = TokenStore(redis, settings.key_prefix)
    advice = RedisAdviceLog(redis, prefix=settings.key_prefix, archives=store.archives)
    games = GameService(store, repository, tokens, index=index, scheduler=scheduler, advice=advice,
                        # the games of a match in play read only for their seats; a worker reads for no
                        # outside caller (its sweeper lists every game in play, a match's too)
                        seals=not worker,
                        # games of built-in bots alone in play, per caller and server-wide (POST /games)
                        bot_games=RedisBotGames(redis, settings.key_prefix), limits=_limits(settings),
                        # the append that ends a game queues its archive
                        archive_later=None if archives_queue is None else (
                            lambda game_id: queue_archive(archives_queue, game_id)))
    prefixes = _log_prefixes(settings)
    match_prefix = prefixes["matches"]
    matches = RedisEventStore(redis, codec=MatchCodec, prefix=match_prefix, index=RedisGameIndex(redis, match_prefix),
                              waits=waits)
    # the tournaments' own log beside the matches', and what is kept of them beside their logs
    tournament_prefix = prefixes["tournaments"]
    tournaments = {"tournament_log": RedisEventStore(redis, codec=TournamentCodec, prefix=tournament_prefix,
                                                     index=RedisGameIndex(redis, tournament_prefix), waits=waits),
                   "tournament_keys": RedisTournaments(redis, settings.key_prefix)}
    arena = _arena(settings, RedisArenaStore(redis, settings.key_prefix, waits=waits), matches, games,
                   tournaments=tournaments)
    enqueue = None if analyses_queue is None else (
        lambda game_id, force=False: queue_analysis(analyses_queue, game_id, force=force))
    analyses = GameAnalyses(games, RedisAnalyses(redis, settings.key_prefix, ANALYSIS_VERSION), enqueue,
                            _analysis_limits(settings))
    return dict(settings=settings, store=store, index=index, repository=repository, tokens=tokens, advice=advice,
                games=games, arena=arena, analyses=analyses, archives=GameArchives(store, index))


def build_api(settings: Settings, *, bot_scheduler: Callable[..., None] | None = None) -> ApiComponents:
    """Connections, adapters and the service layer of an API process.

    ``bot_scheduler(game_id, state, whole=False)`` is called after every successful append; by
    default it is a BotScheduler on the queue's Redis (it enqueues the turn of a bot to act).
    """
    redis = redis_client(settings.redis_url, settings.redis_timeout_s)
    # an API process's live streams wait (XREAD BLOCK) on connections of their own, one per stream
    # it can hold: on ``redis``'s pool they took every connection, and its requests had none
    waits = stream_wait_client(settings.redis_url, settings.redis_timeout_s, settings.connections,
                               STREAM_POOL_TIMEOUT_S)
    scheduler = bot_scheduler if bot_scheduler is not None else make_bot_scheduler(settings)
    connection = queue_connection(settings)
    parts = _redis_games(settings, redis, waits, scheduler, worker=False,
                         analyses_queue=analysis_queue(connection, settings),
                         archives_queue=archive_queue(connection, settings))
    # no Redis command is sent until a request needs one
    records = CreationRecords(redis, settings.key_prefix, secret=settings.secret)
    return ApiComponents(
        **parts, redis=redis, scheduler=scheduler,
        limiter=RateLimiter(redis, settings.key_prefix, settings.rate_limit_per_minute,
                            ipv6_prefix=settings.rate_limit_ipv6_prefix, limits=rate_limits(settings)),
        token_check=TokenCheck(parts["games"], parts["arena"]),
        queue_redis=scrape_connection(settings, redis),
        creations=CreationIdempotency(records), pepper=records.pepper,
        stream_places=StreamPlaces(redis, settings.key_prefix, settings.max_streams_per_client,
                                   stream_max_s=float(settings.extra.get("stream_max_s", 300.0))),
        memory_guard=MemoryGuard(redis, settings.memory_guard_share))


def rate_limits(settings: Settings) -> dict[str, tuple[int, int]]:
    """The base limit and window of the rate limiter's counters that GINBOX_RATE_LIMIT does not set."""
    streams = settings.stream_opens_per_minute
    return {"stream-token": (streams, WINDOW_S), "stream-addr": (streams, WINDOW_S),
            "stream-addr-tokens": (streams, WINDOW_S),
            "create-hour": (settings.creations_per_hour, HOUR_S), "create-day": (settings.creations_per_day, DAY_S),
            "register-hour": (settings.registrations_per_hour, HOUR_S),
            "register-day": (settings.registrations_per_day, DAY_S)}


def build_worker(settings: Settings) -> WorkerComponents:
    """Connections, adapters and the service layer of a bot worker: its own appends schedule the next
    bot turn exactly as the API's do."""
    redis = redis_client(settings.redis_url, settings.redis_timeout_s)
    connection = queue_connection(settings, worker=True)
    queue = bot_queue(connection, settings.queue_name)
    board_queue = bot_queue(connection, settings.board_queue)
    scheduler = BotScheduler(queue, settings.key_prefix, board_queue=board_queue)
    analyses_queue = analysis_queue(connection, settings)
    archives_queue = archive_queue(connection, settings)
    parts = _redis_games(settings, redis, None, scheduler, worker=True, analyses_queue=analyses_queue,
                         archives_queue=archives_queue)
    return WorkerComponents(**parts, redis=redis, queue=queue, board_queue=board_queue, scheduler=scheduler,
                            analysis_queue=analyses_queue, archive_queue=archives_queue)


def build_in_memory(settings: Settings, *, scheduler: Callable[..., None] | None = None,
                    clock_ms: Callable[[], int] | None = None) -> InMemoryComponents:
    """The games and the arena on the stores' in-memory twins, wired as the Redis ones are.

    ``scheduler``: what the games tell of every append (none by default); ``clock_ms``: the one
    clock every store and both services read (a test moves it), else the system's.
    """
    clocked = {"clock": clock_ms} if clock_ms is not None else {}
    store = InMemoryEventStore(**clocked)
    index = store.index
    tokens = InMemoryTokenStore(settings.key_prefix)
    advice = InMemoryAdviceLog(store, **clocked)
    bot_games = InMemoryBotGames(index, settings.key_prefix)
    games = GameService(store, GameRepository(store, InMemorySnapshotStore(store), settings.snapshot_every), tokens,
                        index=index, scheduler=scheduler, advice=advice, bot_games=bot_games,
                        limits=_limits(settings), **({"clock_ms": clock_ms} if clock_ms is not None else {}))
    # the matches' own log, apart from the games'
    matches = InMemoryEventStore(codec=MatchCodec, **clocked)
    arena_store = InMemoryArenaStore(settings.key_prefix, **clocked)
    arena = _arena(settings, arena_store, matches, games, clock_ms,
                   tournaments={"tournament_log": InMemoryEventStore(codec=TournamentCodec, **clocked),
                                "tournament_keys": InMemoryTournaments()})
    analyses = GameAnalyses(games, InMemoryAnalyses(settings.key_prefix, ANALYSIS_VERSION), None,
                            _analysis_limits(settings), clock_ms)
    return InMemoryComponents(settings=settings, store=store, index=index, repository=games.repository, tokens=tokens,
                              advice=advice, games=games, arena=arena, analyses=analyses,
                              archives=GameArchives(store, index), bot_games=bot_games,
                              matches=matches, arena_store=arena_store)
