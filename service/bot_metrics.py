"""The bot-turn metrics the workers record (``ginbox_bot_turns``, ``ginbox_bot_turn_duration_seconds``).

In multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``, shared by the API and the workers of one host),
each worker writes its samples to that directory and the API's /metrics adds them up.
"""

# This module is apart from service.metrics (gunicorn's config and the /metrics endpoint).
# That one imports Flask and the API's problem answers; a worker counts its turns without either.

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Iterator

from prometheus_client import Counter, Histogram

BOT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

BOT_TURNS = Counter("ginbox_bot_turns", "Bot turns played by the workers", ["kind", "outcome"])
BOT_TURN_SECONDS = Histogram("ginbox_bot_turn_duration_seconds", "Time a worker took for one bot turn",
                             ["kind"], buckets=BOT_BUCKETS)


#: how often a bot worker says it is alive (workers/sweeper.py, ``Heartbeat``), and how long after its
#: last word it is taken for dead: a job it had started no longer counts as running
#: (``ginbox_bot_jobs_running``), since RQ keeps that job as started until long after
WORKER_BEAT_S = 1.0
WORKER_ALIVE_S = 10.0


def live_workers_key(key_prefix: str) -> str:
    """The sorted set of bot workers (member: RQ worker name, score: ms of its last heartbeat).

    On the queue's Redis, with its own hash tag as the games waiting on a bot (service.bots)."""
    return f"{key_prefix}:{{#bots}}:workers"


def observe_bot_turn(kind: str, outcome: str, seconds: float) -> None:
    """Count one bot turn (kind: "move", "advice", "clock"; outcome: "moved", "advised",
    "auto_played", "moved_on" when another move landed first, "error")."""
    BOT_TURNS.labels(kind=kind, outcome=outcome).inc()
    BOT_TURN_SECONDS.labels(kind=kind).observe(seconds)


@contextmanager
def bot_turn(kind: str = "move") -> Iterator[dict]:
    """Time the body as one bot turn; set ``outcome`` in the yielded dict ("error" if it raises)."""
    result = {"outcome": "done"}
    t0 = time.perf_counter()
    try:
        yield result
    except BaseException:
        result["outcome"] = "error"
        raise
    finally:
        observe_bot_turn(kind, str(result["outcome"]), time.perf_counter() - t0)
