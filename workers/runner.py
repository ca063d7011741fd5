"""Start-up of a ``ginbox worker`` process: the RQ worker that plays bot turns."""

from __future__ import annotations

from rq import Queue, Worker
from rq.serializers import JSONSerializer

from service.config import Settings
from service.connections import redis_client


def queue_connection(settings: Settings):
    """The Redis that holds the job queue: RQ_REDIS_URL, else REDIS_URL."""
    return redis_client(settings.rq_redis_url or settings.redis_url, timeout_s=max(settings.redis_timeout_s, 10))


def run_worker(settings: Settings, burst: bool = False) -> int:
    conn = queue_connection(settings)
    queue = Queue(settings.queue_name, connection=conn, serializer=JSONSerializer)
    worker = Worker([queue], connection=conn, serializer=JSONSerializer)
    worker.work(burst=burst, with_scheduler=True)
    return 0
