"""What /metrics reads of the bot queues at scrape time: jobs waiting, running and scheduled, and
the games waiting on a bot."""

from __future__ import annotations

from dataclasses import dataclass

from service.bot_metrics import WORKER_ALIVE_S, live_workers_key
from service.bots.waiting import awaiting_key


@dataclass(frozen=True)
class QueueCounts:
    """One queue's jobs: waiting in its list, run now by a live worker, waiting for their time."""

    queued: int
    running: int
    scheduled: int


@dataclass(frozen=True)
class QueueGauges:
    """Every queue's counts by label, and the games waiting on a bot."""

    queues: dict[str, QueueCounts]
    waiting: int


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


def read_queue_gauges(connection, queues: dict[str, str], key_prefix: str, now_s: float) -> QueueGauges:
    """The counts of the queues ``{label: RQ queue name}`` at ``now_s``, in two pipelined reads."""
    pipe = connection.pipeline(transaction=False)
    for name in queues.values():
        # RQ's key layout: the queue is a list, its registries are sorted sets. A started job's
        # score is when RQ takes it for abandoned (its timeout + 60 s from its start): one past
        # it is no job running, even before a worker's clean-up removes it
        pipe.llen(f"rq:queue:{name}")
        pipe.zrangebyscore(f"rq:wip:{name}", int(now_s), "+inf")
        pipe.zcard(f"rq:scheduled:{name}")
    pipe.zcard(awaiting_key(key_prefix))
    # the workers that said they were alive lately (a killed worker's job stays started in RQ's
    # registry for minutes: only a live worker's current job is running)
    pipe.zrangebyscore(live_workers_key(key_prefix), int((now_s - WORKER_ALIVE_S) * 1000), "+inf")
    *counts, n_waiting, live = pipe.execute()
    pipe = connection.pipeline(transaction=False)
    for worker in live:
        pipe.hget(f"rq:worker:{_text(worker)}", "current_job")
    running = {_text(job) for job in pipe.execute() if job}
    out = {}
    for i, label in enumerate(queues):
        n_queued, started_runs, n_scheduled = counts[3 * i:3 * i + 3]
        # an entry is <job id>:<execution id>
        out[label] = QueueCounts(n_queued, len({_text(run).split(":", 1)[0] for run in started_runs} & running),
                                 n_scheduled)
    return QueueGauges(out, n_waiting)
