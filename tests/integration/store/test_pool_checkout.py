"""The pool of service.connections hands out a connection without polling it when it has just
answered, and polls (and replaces) one that has been idle: a connection Redis closed while it sat
in the pool is connected again, and the command on it succeeds."""

from __future__ import annotations

import time

from service.connections import POLL_AFTER_IDLE_S, redis_client


def _kill_clients_but(admin, keep_id: int) -> int:
    killed = 0
    for client in admin.client_list():
        if int(client["id"]) != keep_id:
            admin.client_kill_filter(_id=client["id"])
            killed += 1
    return killed


def test_a_connection_closed_by_redis_while_idle_in_the_pool_is_replaced_before_its_next_command(redis_url,
                                                                                                key_prefix):
    client = redis_client(redis_url)
    admin = redis_client(redis_url)
    try:
        client.set(f"{key_prefix}:a", "1")
        first_id = client.client_id()
        assert _kill_clients_but(admin, admin.client_id()) >= 1
        # idle past the threshold: the checkout polls it, sees the closed socket and connects again
        time.sleep(POLL_AFTER_IDLE_S + 0.2)
        assert client.get(f"{key_prefix}:a") == b"1"
        assert client.client_id() != first_id  # a new connection answered
        pipe = client.pipeline(transaction=False)
        pipe.incr(f"{key_prefix}:n")
        pipe.get(f"{key_prefix}:a")
        _kill_clients_but(admin, admin.client_id())
        time.sleep(POLL_AFTER_IDLE_S + 0.2)
        assert pipe.execute() == [1, b"1"]
    finally:
        client.close()
        admin.close()

