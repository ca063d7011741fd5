"""`ginbox serve` with no REDIS_URL: embedded Redis, ready, and games survive a restart."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

from service.redis_process import free_port


def _get(url: str, timeout: float = 2.0):
    with urllib.request.urlopen(url, timeout=timeout) as resp:
        return resp.status, json.loads(resp.read() or b"null")


def _post(url: str, body: dict):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        return resp.status, json.loads(resp.read())


def _start(data_dir, port):
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(GINBOX_DATA_DIR=str(data_dir), GINBOX_PROCESSES="1", GINBOX_CONNECTIONS="50", GINBOX_BOT_WORKERS="0")
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "ginbox serve exited early"
        try:
            status, body = _get(f"http://127.0.0.1:{port}/readyz")
            if status == 200:
                return proc
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.2)
    proc.kill()
    raise AssertionError("ginbox serve did not become ready within 60 s")


def _stop(proc):
    proc.send_signal(signal.SIGTERM)
    proc.wait(30)


def test_serve_without_redis_url_is_ready_and_keeps_games_across_a_restart(tmp_path):
    port = free_port()
    proc = _start(tmp_path, port)
    try:
        status, created = _post(f"http://127.0.0.1:{port}/games",
                                {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
        assert status == 201
        game_id = created["game_id"]
        _, before = _get(f"http://127.0.0.1:{port}/games/{game_id}")
    finally:
        _stop(proc)
    # the embedded Redis kept its append-only file under the data directory
    assert (tmp_path / "redis").is_dir()

    port = free_port()
    proc = _start(tmp_path, port)
    try:
        status, after = _get(f"http://127.0.0.1:{port}/games/{game_id}")
        assert status == 200
        assert after == before
    finally:
        _stop(proc)
