"""`ginbox worker` says it is up, with the jobs it takes, before it takes any."""

from __future__ import annotations

import os
import subprocess
import sys


def test_a_worker_says_which_jobs_it_takes(redis_url, key_prefix):
    env = {**os.environ, "REDIS_URL": redis_url, "GINBOX_KEY_PREFIX": key_prefix,
           "GINBOX_QUEUE": f"{key_prefix}-bots"}
    for queues, said in (("turns,boards", "taking turns then boards jobs"), ("boards", "taking boards jobs")):
        done = subprocess.run([sys.executable, "-m", "service.cli", "worker", "--burst", "--queues", queues],
                              env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        first = done.stdout.splitlines()[0]
        assert first.startswith("ginbox worker: pid ") and said in first, done.stdout
