"""Start-up of a ``ginbox worker`` process: connections, the jobs' context, the sweeper, the RQ worker."""

from __future__ import annotations

import logging
import os
import sys
import time

import redis

from rq import SimpleWorker
from rq.serializers import JSONSerializer

from service import composition
from service.composition import WORKER_TTL_S
from service.config import Settings
from service.logging import configure_logging
from workers import jobs
from workers.sweeper import Heartbeat, Sweeper

log = logging.getLogger(__name__)


class OncePerOutage(logging.Filter):
    """Lets through the first of RQ's "could not connect to Redis" errors of an outage, as a
    warning, and drops its repeats (RQ's loop logs one a second while Redis is away; the sweeper
    says when Redis is reachable again) until ``quiet_s`` seconds pass without one."""

    MARK = "could not connect to Redis"

    def __init__(self, quiet_s: float = 60.0, clock=time.monotonic):
        super().__init__()
        self.quiet_s = quiet_s
        self.clock = clock
        self.last: float | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if self.MARK not in record.getMessage():
            return True
        now, last = self.clock(), self.last
        self.last = now
        if last is not None and now - last < self.quiet_s:
            return False
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


#: the longest the worker's command-channel thread waits for a message (RQ's: 60 s), so the most a
#: stopping worker waits for that thread
PUBSUB_WAIT_S = 1.0


class BotWorker(SimpleWorker):
    """RQ's in-process worker that remembers being asked to stop (SIGTERM/SIGINT)."""

    stop_signalled = False

    def request_stop(self, signum, frame):
        # RQ raises StopRequested when idle without keeping a flag: keep one, so that the
        # restart loop below can tell a requested stop from a lost Redis connection
        self.stop_signalled = True
        # and tell the job in hand: a board game's job stops after its current turn (RQ itself
        # waits for the job to end, however long its game)
        ctx = jobs.current_context()
        if ctx is not None:
            ctx.stopping.set()
        super().request_stop(signum, frame)

    def subscribe(self):
        """RQ's subscription to the worker's command channel, with a thread that looks every second.

        RQ's own thread waits up to 60 s for a message, and redis-py 8 joins that thread when the
        worker stops. A stop whose unsubscribe was answered before the thread's next wait then hung
        for up to a minute in RQ's teardown.
        """
        self.log.info('Worker %s: subscribing to channel %s', self.name, self.pubsub_channel_name)
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(
            sleep_time=PUBSUB_WAIT_S, daemon=True, exception_handler=self._pubsub_exception_handler)


def build_context(settings: Settings) -> jobs.WorkerContext:
    """Every connection the jobs use, made once (STYLE.md: connections at start-up only)."""
    return composition.build_worker(settings)


#: what a worker may serve: "turns" (bot turns and turn clocks of the games a person or a bot account
#: plays: GINBOX_QUEUE), "boards" (whole board games of matches, and the turns of the games of
#: built-in bots alone, which nobody waits on: GINBOX_BOARD_QUEUE), "analysis" (decision analyses
#: of finished games: GINBOX_ANALYSIS_QUEUE) and "archive" (finished games to archive:
#: GINBOX_ARCHIVE_QUEUE)
QUEUE_KINDS = ("turns", "boards", "analysis", "archive")
#: what a worker serves when not told: the bots' queues, then the archive's light jobs (an analysis
#: takes seconds of a core)
DEFAULT_QUEUE_KINDS = ("turns", "boards", "archive")


def parse_queues(text: str) -> tuple[str, ...]:
    """Some of ``QUEUE_KINDS``, comma-separated (``"turns,boards"``, ``"analysis"``), as the kinds
    served in ``QUEUE_KINDS``'s order whatever the order given: a turn waiting behind a board game is
    what the turn queue exists to avoid (service/docs/OPERATE.md, "Bot workers and their queues")."""
    kinds = {part.strip() for part in (text or "").split(",") if part.strip()}
    unknown = kinds - set(QUEUE_KINDS)
    if not kinds or unknown:
        raise ValueError(f"queues must be some of turns, boards, analysis and archive, comma-separated (got {text!r})")
    return tuple(k for k in QUEUE_KINDS if k in kinds)


def worker_queues(ctx: jobs.WorkerContext, kinds: tuple[str, ...] = DEFAULT_QUEUE_KINDS) -> list:
    """The RQ queues a worker listens on, the turn queue first: RQ takes a job from the first
    queue that has one, so a worker serving both starts no board game while a bot's turn waits."""
    by_kind = {"turns": ctx.queue, "boards": ctx.board_queue, "analysis": ctx.analysis_queue,
               "archive": ctx.archive_queue}
    return [by_kind[k] for k in QUEUE_KINDS if k in kinds]


def failure_line(err: Exception) -> str:
    """Why a burst could not go through its queues, in one line."""
    if isinstance(err, (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)):
        return f"Redis cannot be reached ({err})"
    return f"the queues could not be read ({type(err).__name__}: {err})"


def run_worker(settings: Settings, burst: bool = False, queues: tuple[str, ...] = DEFAULT_QUEUE_KINDS) -> int:
    """Run the bot worker until it is asked to stop (SIGTERM/SIGINT); with ``burst``, until its queues are empty.

    ``queues`` are the kinds of job it takes (``QUEUE_KINDS``): by default the bots', turn jobs first.
    If Redis goes away the RQ loop ends; it starts again after a pause.
    A burst that fails says why in one line and returns 1.
    """
    # Restarting the loop does not leave the games without a worker.
    configure_logging()
    rq_log = logging.getLogger("rq.worker")
    if not any(isinstance(f, OncePerOutage) for f in rq_log.filters):
        rq_log.addFilter(OncePerOutage())
    ctx = build_context(settings)
    listen = worker_queues(ctx, queues)
    if burst:
        try:
            # before the sweeper starts: it would warn of the same unreachable Redis meanwhile
            ctx.queue.connection.ping()
        except Exception as err:  # noqa: BLE001
            print(f"ginbox worker: {failure_line(err)}", file=sys.stderr, flush=True)
            return 1
    jobs.set_context(ctx)
    sweeper = Sweeper(ctx)
    sweeper.start()
    heartbeat = Heartbeat(ctx.queue.connection, settings.key_prefix)
    heartbeat.start()
    try:
        while True:
            worker = None
            try:
                # built inside the try: RQ's constructor talks to Redis, which may still be down.
                # A plain (non-forking) RQ worker runs the jobs in this process:
                # a bot's answer costs no fork, and the connections built at start-up are reused.
                worker = BotWorker(listen, connection=ctx.queue.connection, serializer=JSONSerializer,
                                   worker_ttl=WORKER_TTL_S)
                heartbeat.serve(worker.name)
                worker.work(burst=burst, logging_level="WARNING")
            except Exception as err:  # noqa: BLE001
                if burst:
                    # one pass over the queues, nothing to wait for: its failure is the outcome
                    print(f"ginbox worker: {failure_line(err)}", file=sys.stderr, flush=True)
                    return 1
                if isinstance(err, (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)):
                    # an outage, which the sweeper reports as it begins and ends: no traceback
                    log.warning("worker loop ended: %s", failure_line(err))
                else:
                    log.exception("worker loop failed")
            if burst:
                return 0
            if worker is not None and (worker.stop_signalled or worker._stop_requested):
                print(f"ginbox worker: pid {os.getpid()} stopped", flush=True)
                return 0
            log.warning("worker loop ended (Redis unavailable?): starting again in 1s")
            time.sleep(1.0)
    finally:
        heartbeat.stop()
        sweeper.stop()
        jobs.set_context(None)
