"""The data directory's lock: one ``ginbox serve`` per data directory, and who holds it."""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path

#: the lock file of ``ginbox serve`` in its data directory
LOCK_FILE = "serve.lock"


class DataDirBusy(RuntimeError):
    """Another ``ginbox serve`` (or the redis-server it left) holds the data directory."""


def _alive(pid) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ProcessLookupError, ValueError, TypeError):
        return False
    except PermissionError:
        return True
    return True


class DataDirLock:
    """One ``ginbox serve`` per data directory: an exclusive ``flock`` on ``<data dir>/serve.lock``.

    Hand the embedded redis-server a copy of ``fd``: the lock is then held while the server *or* its redis-server runs.
    The file holds, as JSON, who holds the lock (pid, API address, redis-server pid).
    ``acquire`` raises ``DataDirBusy`` with a message naming them.
    """

    # The kernel drops the lock when the last descriptor of the open file closes.
    # So no stale lock survives a crash or a kill -9.
    # While its redis-server holds a copy, no second redis-server can ever open the same append-only file,
    # even if the first outlived its server.
    # The children are also told to die with the server (redis_process.die_with_parent).

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self.path = data_dir / LOCK_FILE
        self.fd: int | None = None
        self.info: dict = {}

    def acquire(self) -> "DataDirLock":
        self.data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise DataDirBusy(self._holder()) from None
        self.fd = fd
        return self

    def _holder(self) -> str:
        """Who holds the lock, in words, from what it wrote into the file."""
        info = {}
        for _ in range(10):  # the holder may be rewriting it just now
            try:
                info = json.loads(self.path.read_text())
                break
            except (OSError, ValueError):
                time.sleep(0.05)
        where = f"the data directory {self.data_dir}"
        pid, api, redis_pid = info.get("pid"), info.get("api"), info.get("redis_pid")
        if pid and _alive(pid):
            return (f"another ginbox serve (pid {pid}{f', API on {api}' if api else ''}) is running on {where}: "
                    "stop it first, or give this one another GINBOX_DATA_DIR")
        if redis_pid and _alive(redis_pid):
            gone = f"a ginbox serve that is gone{f' (pid {pid})' if pid else ''}"
            return (f"the redis-server (pid {redis_pid}) of {gone} still holds {where}: "
                    "it is shutting down; if it stays, stop it")
        return f"another process holds the lock {self.path} on {where}"

    def update(self, **fields) -> None:
        """Record ``fields`` (pid, api, redis_pid...) in the lock file."""
        # rewritten in place, never replaced: a new inode would be a new, unlocked lock
        self.info.update(fields)
        data = json.dumps(self.info).encode()
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, data, 0)

    def release(self) -> None:
        """Let go of the lock (a redis-server still running keeps its own copy of it)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

