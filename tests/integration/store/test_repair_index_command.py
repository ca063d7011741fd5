"""``ginbox repair-index`` rebuilds the listings of games, matches and tournaments from their logs.

As if a process had died between each append and its index update (the Redis Cluster case), the
index keys are deleted; the command, run as an operator runs it, brings back every listing as it was.
"""

from __future__ import annotations

import subprocess
import sys

from support.servers import REPO, service_env
from support.store_behaviour import StepClock, TestCodec, events

from service.store.redis_store import RedisEventStore

KINDS = {"games": "", "matches": ":match", "tournaments": ":tournament"}


def _stores(redis_conn, key_prefix) -> dict[str, RedisEventStore]:
    return {kind: RedisEventStore(redis_conn, TestCodec(), prefix=key_prefix + suffix, clock=StepClock())
            for kind, suffix in KINDS.items()}


def _listings(stores) -> dict:
    return {(kind, status): store.index.list_games(status=status)
            for kind, store in stores.items() for status in (None, "waiting", "playing", "over")}


def test_the_command_rebuilds_every_listing_from_the_logs(redis_url, redis_conn, key_prefix):
    stores = _stores(redis_conn, key_prefix)
    made = {"games": ["waiting", "playing", "over"], "matches": ["playing", "over"], "tournaments": ["over"]}
    for kind, statuses in made.items():
        for i, status in enumerate(statuses):
            stores[kind].append(f"{kind}-{i}", events("a"), 0, meta={"status": status, "variant": "gin-rami"})
    before = _listings(stores)
    assert [len(before[(kind, None)][0]) for kind in KINDS] == [3, 2, 1]

    # every index lost
    for suffix in KINDS.values():
        lost = list(redis_conn.scan_iter(match=f"{key_prefix}{suffix}:{{#index}}:*"))
        assert lost
        redis_conn.delete(*lost)
    assert all(listing == ([], None) for listing in _listings(stores).values())

    done = subprocess.run([sys.executable, "-m", "service.cli", "repair-index"], cwd=REPO,
                          env=service_env(redis_url, key_prefix), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "games: 3, matches: 2, tournaments: 1"
    # off a terminal, progress is plain lines on stderr
    assert "ginbox repair-index: 3/3 games" in done.stderr, done.stderr
    assert _listings(stores) == before


def test_the_command_says_when_redis_cannot_be_reached(key_prefix):
    done = subprocess.run([sys.executable, "-m", "service.cli", "repair-index"], cwd=REPO,
                          env=service_env("redis://127.0.0.1:1/0", key_prefix), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "ginbox repair-index: Redis cannot be reached" in done.stderr
