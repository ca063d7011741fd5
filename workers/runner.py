"""Start-up of a ``ginbox worker`` process: connections, the jobs' context, the sweeper, the RQ worker."""

from __future__ import annotations

import logging
import time

from rq import SimpleWorker
from rq.serializers import JSONSerializer

from service.bots import BotScheduler, bot_queue
from service.config import Settings
from service.connections import redis_client
from service.logging import configure_logging
from workers import jobs
from workers.sweeper import Sweeper

log = logging.getLogger(__name__)

#: RQ's worker TTL (seconds). An idle RQ worker blocks on the queue (BLPOP) for
#: ``worker_ttl - 15`` seconds at a time (rq 2.x ``Worker.dequeue_timeout``: 405 s with its
#: default TTL of 420) and expects its connection's socket timeout to be at least that plus 10 s
#: (``Worker.connection_timeout``). A blocking read longer than the socket timeout ends every idle
#: spell in "Redis connection timeout, quitting..." and a restart of the loop. 20 s gives blocking
#: reads of 5 s; the worker's key then expires 80 s (TTL + 60) after its last heartbeat.
WORKER_TTL_S = 20
#: socket timeout of the queue connection: RQ's ``connection_timeout`` for ``WORKER_TTL_S``
#: (5 s read + 10 s), so every blocking read returns before the socket gives up, RQ leaves the
#: connection's settings alone, and a Redis that hangs still fails a command within 15 s
QUEUE_SOCKET_TIMEOUT_S = (WORKER_TTL_S - 15) + 10


class BotWorker(SimpleWorker):
    """RQ's in-process worker that remembers being asked to stop (SIGTERM/SIGINT)."""

    stop_signalled = False

    def request_stop(self, signum, frame):
        # RQ raises StopRequested when idle without keeping a flag: keep one, so that the
        # restart loop below can tell a requested stop from a lost Redis connection
        self.stop_signalled = True
        super().request_stop(signum, frame)


def queue_connection(settings: Settings):
    """The Redis that holds the job queue: RQ_REDIS_URL, else REDIS_URL."""
    return redis_client(settings.rq_redis_url or settings.redis_url,
                        timeout_s=max(settings.redis_timeout_s, QUEUE_SOCKET_TIMEOUT_S))


def build_context(settings: Settings) -> jobs.WorkerContext:
    """Every connection the jobs use, made once (STYLE.md: connections at start-up only)."""
    from service.games import GameService, TokenStore
    from service.store.advice import RedisAdviceLog
    from service.store.redis_store import RedisEventStore
    from service.store.repository import GameRepository

    redis = redis_client(settings.redis_url, settings.redis_timeout_s)
    queue = bot_queue(queue_connection(settings), settings.queue_name)
    store = RedisEventStore(redis, prefix=settings.key_prefix)
    repository = GameRepository(store, settings.snapshot_every)
    # the worker's own appends schedule the next bot turn, exactly as the API's do
    games = GameService(store, repository, TokenStore(redis, settings.key_prefix),
                        bot_scheduler=BotScheduler(queue, settings.key_prefix),
                        advice=RedisAdviceLog(redis, prefix=settings.key_prefix))
    return jobs.WorkerContext(settings=settings, store=store, repository=repository, games=games, queue=queue)


def run_worker(settings: Settings, burst: bool = False) -> int:
    """Run the bot worker until it is asked to stop (SIGTERM/SIGINT); with ``burst``, until the queue is empty.

    A plain (non-forking) RQ worker runs the jobs in this process, so a bot's answer costs no
    fork and the connections built at start-up are reused. If Redis goes away the RQ loop ends;
    it is started again after a pause instead of leaving the games without a worker.
    """
    configure_logging()
    ctx = build_context(settings)
    jobs.set_context(ctx)
    sweeper = Sweeper(ctx)
    sweeper.start()
    try:
        while True:
            worker = None
            try:
                # built inside the try: RQ's constructor talks to Redis, which may still be down
                worker = BotWorker([ctx.queue], connection=ctx.queue.connection, serializer=JSONSerializer,
                                   worker_ttl=WORKER_TTL_S)
                worker.work(burst=burst, logging_level="WARNING")
            except Exception:  # noqa: BLE001
                log.exception("worker loop failed")
            if burst or (worker is not None and (worker.stop_signalled or worker._stop_requested)):
                return 0
            log.warning("worker loop ended (Redis unavailable?): starting again in 1s")
            time.sleep(1.0)
    finally:
        sweeper.stop()
        jobs.set_context(None)
