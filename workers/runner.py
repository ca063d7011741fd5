"""Start-up of a ``ginbox worker`` process: connections, the jobs' context, the sweeper, the RQ worker."""

from __future__ import annotations

import logging
import time

from rq import SimpleWorker
from rq.serializers import JSONSerializer

from service import composition
from service.composition import WORKER_TTL_S
from service.config import Settings
from service.logging import configure_logging
from workers import jobs
from workers.sweeper import Sweeper

log = logging.getLogger(__name__)


class BotWorker(SimpleWorker):
    """RQ's in-process worker that remembers being asked to stop (SIGTERM/SIGINT)."""

    stop_signalled = False

    def request_stop(self, signum, frame):
        # RQ raises StopRequested when idle without keeping a flag: keep one, so that the
        # restart loop below can tell a requested stop from a lost Redis connection
        self.stop_signalled = True
        super().request_stop(signum, frame)


def build_context(settings: Settings) -> jobs.WorkerContext:
    """Every connection the jobs use, made once (STYLE.md: connections at start-up only)."""
    built = composition.build(settings, worker=True)
    return jobs.WorkerContext(settings=settings, store=built.store, repository=built.repository, games=built.games,
                              queue=built.queue)


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
