"""A stopping worker does not wait on its command channel: the thread that reads it (RQ's pubsub
thread) looks every PUBSUB_WAIT_S, not RQ's 60 s, so the worker's teardown, which joins that thread,
ends within about a second, whatever the order in which the unsubscribe and the stop come."""

from __future__ import annotations

import redis
from rq import Queue

from workers.runner import PUBSUB_WAIT_S, BotWorker


def test_the_command_channel_thread_looks_every_second_and_ends_with_the_unsubscribe(redis_url, key_prefix):
    assert PUBSUB_WAIT_S <= 1.0
    conn = redis.Redis.from_url(redis_url)
    worker = BotWorker([Queue(f"{key_prefix}-channel", connection=conn)], connection=conn)
    worker.subscribe()
    try:
        thread = worker.pubsub_thread
        assert thread.is_alive() and thread.sleep_time == PUBSUB_WAIT_S
    finally:
        worker.unsubscribe()  # RQ's: the unsubscribe, then the thread stopped and joined
    assert not thread.is_alive()
    conn.close()
