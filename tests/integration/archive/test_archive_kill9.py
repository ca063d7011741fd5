"""``ginbox archive`` killed -9 at each step of archiving a game leaves every game readable, the same.

The process reaches Redis through a relay (support.servers.FreezingProxy) that freezes at the step:
the write of the record (before it reaches Redis, or after Redis ran it) and the script that drops
the log (before, or after). The process is then killed -9 there. Every game must read exactly as
before; a second ``ginbox archive`` then archives them all, and they still read the same.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.servers import REPO, FreezingProxy, kill9, service_env
from support.store_behaviour import played_game

from service.games.archive import GameArchives
from service.rules import codec
from service.store.redis_store import RedisEventStore

GAMES = ("ga", "gb", "gc")
FREEZE_S = 60


def is_record_write(data: bytes) -> bool:
    return b"\r\nSET\r\n" in data and b"}:archive" in data


def is_log_drop(data: bytes) -> bool:
    return b"EVAL" in data and b"}:archive" in data and b"}:stream" in data


def store_of(redis_conn, key_prefix) -> RedisEventStore:
    """A store of its own: nothing decoded in memory."""
    return RedisEventStore(redis_conn, codec=codec, prefix=key_prefix)


def reads(store) -> dict:
    return {g: [(r.version, r.ts, r.raw) for r in store.load(g)] for g in GAMES}


# (where the relay freezes, whether Redis ran that command, what the game caught then holds)
STEPS = {"before-record": (is_record_write, "drop", ("stream",)),
         "after-record": (is_record_write, "forward", ("archive", "stream")),
         "before-drop": (is_log_drop, "drop", ("archive", "stream")),
         "after-drop": (is_log_drop, "forward", ("archive",))}


@pytest.mark.slow
@pytest.mark.parametrize("step", list(STEPS))
def test_a_kill_9_at_any_step_of_archiving_leaves_every_game_readable(step, redis_url, redis_conn, key_prefix,
                                                                         tmp_path):
    trigger, mode, expected = STEPS[step]
    store = store_of(redis_conn, key_prefix)
    batches = played_game("three-hand", seed=10)  # a game that ends
    for g in GAMES:
        version = 0
        for i, batch in enumerate(batches):
            status = "over" if i == len(batches) - 1 else "playing"
            version = store.append(g, batch, version, meta={"status": status, "variant": "three-hand"})
    before = reads(store)

    host, port = redis_url.split("//")[1].split("/")[0].split(":")
    proxy = FreezingProxy(host, int(port), trigger, nth=1, mode=mode)
    env = service_env(proxy.url, key_prefix)
    with open(tmp_path / "archive.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "service.cli", "archive"], cwd=REPO, env=env,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        assert proxy.frozen.wait(FREEZE_S), (tmp_path / "archive.log").read_text()
        kill9(proc)
        proc.wait(10)
    finally:
        kill9(proc)
        proxy.close()

    keys = {g: {k.decode().rsplit(":", 1)[1] for k in redis_conn.scan_iter(match=f"{key_prefix}:{{{g}}}:*")}
            for g in GAMES}
    held = sorted(tuple(sorted({"stream", "archive"} & k)) for k in keys.values())
    # the game caught holds what the step left: its log, its log and its record, or its record
    assert expected in held, keys
    assert reads(store_of(redis_conn, key_prefix)) == before

    # archiving again finishes the work, and changes no answer
    outcomes = GameArchives(store_of(redis_conn, key_prefix), store.index).archive_finished()
    assert sum(outcomes.values()) == len(GAMES)
    assert set(outcomes) <= {"archived", "archived_already"}
    for g in GAMES:
        assert {k.decode().rsplit(":", 1)[1] for k in redis_conn.scan_iter(match=f"{key_prefix}:{{{g}}}:*")} \
            >= {"archive"}
        assert not redis_conn.exists(f"{key_prefix}:{{{g}}}:stream")
    assert reads(store_of(redis_conn, key_prefix)) == before
