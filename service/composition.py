"""The one place that builds what a process runs on: connections, store, repository, tokens,
advice log, the bot queues (turns, board games) and scheduler, the rate limiter and the service layer, all from ``Settings``.

The API (``service.app.create_app``) and the bot worker (``workers.runner.build_context``)
both start here; nothing connects to Redis at import time.
"""

from __future__ import annotations

from dataclasses import dataclass

from redis import Redis
from rq import Queue
from typing import Any, Callable

from service.arena import ArenaService
from service.bots import BotScheduler, bot_queue
from service.config import Settings
from service.connections import redis_client, stream_wait_client
from service.games import GameLimits, GameService
from service.idempotency import CreationIdempotency
from service.ratelimit import RateLimiter
from service.rules.duplicate import MatchCodec
from service.store.advice import RedisAdviceLog
from service.store.arena import RedisArenaStore
from service.store.bot_games import RedisBotGames
from service.store.creations import CreationRecords
from service.store.redis_index import RedisGameIndex
from service.store.redis_snapshots import RedisSnapshotStore
from service.store.redis_store import RedisEventStore
from service.store.repository import GameRepository
from service.store.stream_places import StreamPlaces
from service.store.tokens import TokenStore

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
class Components:
    """What a process runs on, built once at its start."""

    settings: Settings
    redis: Redis
    store: RedisEventStore
    index: RedisGameIndex
    repository: GameRepository
    tokens: TokenStore
    advice: RedisAdviceLog
    games: GameService
    #: the turn queue (built for a worker; an API process only has its scheduler's)
    queue: Queue | None = None
    #: the board queue, whole board games of matches (built for a worker)
    board_queue: Queue | None = None
    #: the request limits shared by every API process (none for a worker)
    limiter: RateLimiter | None = None
    #: the connection /metrics reads the bot queue's gauges through (an API process's)
    queue_redis: Redis | None = None
    #: bot accounts, their streams, matches, ratings and challenges
    arena: ArenaService | None = None
    #: the bot scheduler the games call after each append (the one owner of the queues and the waiting set)
    scheduler: BotScheduler | None = None
    #: the creations under an Idempotency-Key, over their sealed records (an API process's)
    creations: CreationIdempotency | None = None
    #: the server's secret as 32 bytes, read at its first use (service.store.creations.server_pepper)
    pepper: Callable[[], bytes] | None = None
    #: the live streams each client holds open, counted for every API process (an API process's)
    stream_places: StreamPlaces | None = None


def build_arena(settings: Settings, redis, games: GameService, waits=None) -> ArenaService:
    """The arena over its store, the matches' own log (a prefix of its own) and the games; the
    streams of bots and matches wait on ``waits`` (None: ``redis``)."""
    # under the service's own prefix (a Redis ACL of `~<prefix>:*` covers it), apart from the games' keys
    match_prefix = f"{settings.key_prefix}:match"
    matches = RedisEventStore(redis, codec=MatchCodec, prefix=match_prefix, index=RedisGameIndex(redis, match_prefix),
                              waits=waits)
    return ArenaService(RedisArenaStore(redis, settings.key_prefix, waits=waits), matches, games,
                        keepalive_s=float(settings.extra.get("stream_keepalive_s", 5.0)),
                        stream_max_s=float(settings.extra.get("stream_max_s", 300.0)),
                        matches_per_caller=settings.matches_per_caller, matches_in_play=settings.matches_in_play,
                        challenges_per_bot=settings.challenges_per_bot,
                        challenges_per_challenger=settings.challenges_per_challenger)


def build(settings: Settings, *, bot_scheduler: Callable[[str, Any], None] | None = None,
          worker: bool = False) -> Components:
    """Connections, adapters and the service layer for an API process (or, with ``worker``, a bot worker).

    ``bot_scheduler(game_id, state)`` is called after every successful append; by default it
    enqueues the turn of a bot that has to act on the RQ queue. A worker's own appends schedule
    the next bot turn exactly as the API's do.
    """
    redis = redis_client(settings.redis_url, settings.redis_timeout_s)
    # an API process's live streams wait (XREAD BLOCK) on connections of their own, one per stream
    # it can hold: on ``redis``'s pool they took every connection, and its requests had none
    waits = None if worker else stream_wait_client(settings.redis_url, settings.redis_timeout_s,
                                                   settings.connections, STREAM_POOL_TIMEOUT_S)
    queue = board_queue = None
    if worker:
        connection = queue_connection(settings, worker=True)
        queue = bot_queue(connection, settings.queue_name)
        board_queue = bot_queue(connection, settings.board_queue)
        bot_scheduler = bot_scheduler or BotScheduler(queue, settings.key_prefix, board_queue=board_queue)
    elif bot_scheduler is None:
        bot_scheduler = make_bot_scheduler(settings)
    index = RedisGameIndex(redis, settings.key_prefix)
    store = RedisEventStore(redis, prefix=settings.key_prefix, index=index, waits=waits)
    repository = GameRepository(store, RedisSnapshotStore(redis, settings.key_prefix), settings.snapshot_every)
    tokens = TokenStore(redis, settings.key_prefix)
    advice = RedisAdviceLog(redis, prefix=settings.key_prefix)
    games = GameService(
        store,
        repository,
        tokens,
        index=index,
        scheduler=bot_scheduler,
        advice=advice,
        # the games of a match in play read only for their seats; a worker reads for no outside
        # caller (its sweeper lists every game in play, a match's too), so it seals nothing
        seals=not worker,
        # games of built-in bots alone in play, per caller and server-wide (POST /games; a worker creates none)
        bot_games=RedisBotGames(redis, settings.key_prefix),
        limits=GameLimits(keepalive_s=float(settings.extra.get("stream_keepalive_s", 5.0)),
                          stream_max_s=float(settings.extra.get("stream_max_s", 300.0)),
                          bot_games_per_caller=settings.bot_games_per_caller,
                          bot_games_in_play=settings.bot_games_in_play),
    )
    arena = build_arena(settings, redis, games, waits)
    # the games tell the arena of every append and ask it of bot accounts and sealed boards
    games.join_arena(arena)
    if worker:
        return Components(settings=settings, redis=redis, store=store, index=index, repository=repository, tokens=tokens,
                          advice=advice, games=games, queue=queue, board_queue=board_queue, arena=arena,
                          scheduler=bot_scheduler)
    # what only an API process answers with: no Redis command is sent until a request needs one
    records = CreationRecords(redis, settings.key_prefix, secret=settings.secret)
    stream_places = StreamPlaces(redis, settings.key_prefix, settings.max_streams_per_client,
                                 stream_max_s=float(settings.extra.get("stream_max_s", 300.0)))
    return Components(settings=settings, redis=redis, store=store, index=index, repository=repository, tokens=tokens,
                      advice=advice, games=games, arena=arena,
                      limiter=RateLimiter(redis, settings.key_prefix, settings.rate_limit_per_minute,
                                          ipv6_prefix=settings.rate_limit_ipv6_prefix),
                      queue_redis=scrape_connection(settings, redis),
                      creations=CreationIdempotency(records), pepper=records.pepper, stream_places=stream_places)
