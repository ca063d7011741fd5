"""Waiting in a test for something a real process does (a worker, a server, Redis): poll ``pred``
until it gives a truthy value, which is returned, or fail naming what never came. The deadline
bounds a hung test; it is no assertion about speed."""

from __future__ import annotations

import time
from typing import Any, Callable


def wait_for(pred: Callable[[], Any], what: str, deadline_s: float, every_s: float = 0.05,
             explain: Callable[[], str] | None = None) -> Any:
    """``explain``, if given, says at the deadline what the test saw (a process's log, keys)."""
    end = time.monotonic() + deadline_s
    while True:
        got = pred()
        if got:
            return got
        if time.monotonic() >= end:
            raise AssertionError(f"still waiting for {what}" + (f"\n{explain()}" if explain else ""))
        time.sleep(every_s)
