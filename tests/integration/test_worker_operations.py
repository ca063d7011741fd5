"""`ginbox worker` in operation: a burst that cannot reach Redis fails with one line."""

from __future__ import annotations

import os
import subprocess
import sys

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
