"""Freezing a worker process (SIGSTOP to its process group) at a moment a test wants to look at."""

from __future__ import annotations

import os
import signal
from typing import Any, Callable

from support import waiting


def frozen_when(proc, ready: Callable[[], Any], inside: Callable[[], Any], deadline_s: float,
                tries: int = 200) -> Any:
    """Stop ``proc``'s group once ``ready()`` holds and, seen while it is stopped, ``inside()`` too.

    Returns what ``inside()`` gave. A worker caught between two jobs is let go and caught again.
    The caller resumes it (SIGCONT) or kills it.
    """
    for _ in range(tries):
        waiting.wait_for(ready, "the moment to freeze the worker", deadline_s)
        os.killpg(proc.pid, signal.SIGSTOP)
        seen = inside()
        if seen:
            return seen
        os.killpg(proc.pid, signal.SIGCONT)
    raise AssertionError("the worker was never caught inside a job")


def thaw(proc) -> None:
    """Let a frozen worker go on."""
    os.killpg(proc.pid, signal.SIGCONT)
