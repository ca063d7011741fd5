"""``ginbox serve`` as the tests of the command run it: in a session of its own (as a terminal's
foreground job is), its output in files, waited for until ready; and its processes read from /proc."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from support.servers import kill9


def ready(port: int) -> bool:
    """Whether the server on ``port`` answers /readyz with 200 and status ready."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as resp:
            return resp.status == 200 and json.loads(resp.read())["status"] == "ready"
    except (urllib.error.URLError, ConnectionError, OSError, ValueError, KeyError):
        return False


def launch(data_dir, port: int, logs: Path | None = None, **extra_env) -> subprocess.Popen:
    """``ginbox serve`` in a session of its own, no bot workers unless ``extra_env`` asks; its
    stdout and stderr go to ``logs``.out / .err (nowhere without ``logs``)."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "PROMETHEUS_MULTIPROC_DIR")}
    env.update(GINBOX_DATA_DIR=str(data_dir), GINBOX_PROCESSES="1", GINBOX_CONNECTIONS="50",
               GINBOX_BOT_WORKERS="0", GINBOX_TURN_WORKERS="0")
    env.update(extra_env)
    out = open(f"{logs}.out", "ab") if logs else subprocess.DEVNULL
    err = open(f"{logs}.err", "ab") if logs else subprocess.DEVNULL
    try:
        return subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
                                env=env, stdout=out, stderr=err, start_new_session=True)
    finally:
        if logs:
            out.close()
            err.close()


def log_text(logs: Path | None, which: str, limit: int | None = None) -> str:
    """What the server wrote to ``logs``.``which`` (out or err), its last ``limit`` characters."""
    try:
        text = Path(f"{logs}.{which}").read_text(errors="replace") if logs else ""
    except FileNotFoundError:
        return ""
    return text[-limit:] if limit else text


def start(data_dir, port: int, logs: Path | None = None, **extra_env) -> subprocess.Popen:
    """``launch``, then wait (up to 60 s) until it is ready."""
    proc = launch(data_dir, port, logs, **extra_env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"ginbox serve exited early: {log_text(logs, 'err', 4000)}"
        if ready(port):
            return proc
        time.sleep(0.2)
    kill9(proc)
    raise AssertionError("ginbox serve did not become ready within 60 s")


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie nobody reaped yet counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")
