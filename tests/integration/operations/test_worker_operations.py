"""`ginbox worker` in operation: a burst that cannot reach Redis fails with one line; a worker
stopped by SIGTERM or a Ctrl-C says so and exits 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from service.redis_process import free_port


def test_a_burst_that_cannot_reach_redis_exits_1_with_one_line():
    port = free_port()  # nothing listens there
    env = {**os.environ, "REDIS_URL": f"redis://127.0.0.1:{port}/0", "GINBOX_REDIS_TIMEOUT": "1"}
    done = subprocess.run([sys.executable, "-m", "service.cli", "worker", "--burst"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("ginbox worker: Redis cannot be reached (") and f"127.0.0.1:{port}" in lines[0]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_worker_asked_to_stop_says_so_and_exits_0(redis_url, key_prefix, tmp_path, sig):
    env = {**os.environ, "REDIS_URL": redis_url, "GINBOX_KEY_PREFIX": key_prefix, "GINBOX_QUEUE": f"{key_prefix}-bots"}
    out_path = tmp_path / "worker.out"
    with open(out_path, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker", "--queues", "boards,turns"], env=env,
                                stdout=out, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while "taking" not in out_path.read_text() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        # the order given does not matter: turn jobs first (as --help says)
        assert out_path.read_text() == f"ginbox worker: pid {proc.pid}, taking turns then boards jobs\n"
        time.sleep(0.5)  # in RQ's loop, waiting for jobs
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert out_path.read_text().splitlines()[-1] == f"ginbox worker: pid {proc.pid} stopped"


# slow: Redis stays down for 6 s and the worker starts and stops (about 10 s)
@pytest.mark.slow
def test_a_redis_outage_is_a_few_lines_in_the_worker_log_not_one_a_second(tmp_path):
    from service.redis_process import RedisServerProcess

    redis = RedisServerProcess(tmp_path / "redis").start()
    env = {**os.environ, "REDIS_URL": redis.url, "GINBOX_KEY_PREFIX": "outage", "GINBOX_QUEUE": "outage-bots",
           "GINBOX_REDIS_TIMEOUT": "1"}
    out_path = tmp_path / "worker.out"
    with open(out_path, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env, stdout=out,
                                stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while "taking" not in out_path.read_text() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)
        redis.stop()
        time.sleep(6.0)  # RQ's loop tries again about once a second
        redis = RedisServerProcess(redis.data_dir, port=redis.port).start()
        deadline = time.monotonic() + 30
        while "reachable again" not in out_path.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        redis.stop()
    text = out_path.read_text()
    assert "Traceback" not in text, text
    assert text.count("could not connect to Redis") == 1, text
    assert "reachable again" in text and text.splitlines()[-1] == f"ginbox worker: pid {proc.pid} stopped"
