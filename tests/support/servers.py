"""Real processes for the fault tests and benchmarks: the API under gunicorn, ``ginbox worker``,
and a keep-alive HTTP client that times each exchange.

Each process runs in its own session (process group), so that a kill -9 takes it whole and a
test can stop exactly the processes it started.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.cli import worker_args
from service.redis_process import free_port

REPO = Path(__file__).resolve().parents[2]


def _stop_group(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout)
    except ProcessLookupError:
        pass


def kill9(proc: subprocess.Popen) -> None:
    """kill -9 of the process and everything in its group."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(10)


def service_env(redis_url: str, key_prefix: str, **extra: Any) -> dict[str, str]:
    """The environment of an API or worker process on ``redis_url`` under ``key_prefix``."""
    # the settings of whoever runs the tests (GINBOX_METRICS_TOKEN, GINBOX_RATE_LIMIT, ...) stay out:
    # a server a test starts has the defaults and what the test asks for
    env = {k: v for k, v in os.environ.items() if not k.startswith("GINBOX_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env.update(
        REDIS_URL=redis_url,
        GINBOX_KEY_PREFIX=key_prefix,
        GINBOX_QUEUE=f"{key_prefix}-bots",
        PYTHONPATH=str(REPO) + os.pathsep + env.get("PYTHONPATH", ""),
    )
    if int(extra.get("GINBOX_RATE_LIMIT", 0)) >= 100_000:
        # no practical rate limit: no practical budget of stream opens, creations or registrations either
        for name in ("GINBOX_RATE_LIMIT_STREAMS", "GINBOX_CREATIONS_PER_HOUR", "GINBOX_CREATIONS_PER_DAY",
                     "GINBOX_REGISTRATIONS_PER_HOUR", "GINBOX_REGISTRATIONS_PER_DAY"):
            env[name] = "0"
    env.update({k: str(v) for k, v in extra.items()})
    return env


class ApiServer:
    """``gunicorn service.wsgi:app`` on a free loopback port, with the worker class and the config module
    (``service.metrics``) ``ginbox serve`` uses.

    ``threads`` applies to gthread workers, ``connections`` to gevent ones.
    """

    def __init__(self, env: dict[str, str], log_path: Path, workers: int = 1, threads: int = 8,
                 host: str = "127.0.0.1", port: int | None = None, app: str = "service.wsgi:app",
                 extra_args: list[str] | None = None, worker_class: str = "gevent", connections: int = 1000):
        self.env = env
        self.log_path = Path(log_path)
        self.workers = workers
        self.threads = threads
        self.worker_class = worker_class
        self.connections = connections
        self.host = host
        self.port = port or free_port(host)
        self.app = app
        self.extra_args = list(extra_args or [])
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60.0) -> "ApiServer":
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--bind", f"{self.host}:{self.port}",
             "--workers", str(self.workers), *worker_args(self.worker_class, self.threads, self.connections),
             "--timeout", "0", "--graceful-timeout", "5", "--log-level", "info",
             # gunicorn's settings and hooks, as `ginbox serve` and the image load them
             "--config", "python:service.metrics", *self.extra_args, self.app],
            cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode}:\n{self.log_text()[-3000:]}")
            try:
                status, _, _ = HttpClient(self.host, self.port, timeout=2.0).request("GET", "/healthz")
                if status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"gunicorn did not answer /healthz within {timeout}s:\n{self.log_text()[-3000:]}")

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def booted_workers(self) -> int:
        """How many worker processes gunicorn has booted so far (a crashed worker is booted again)."""
        return self.log_text().count("Booting worker with pid")

    def stop(self) -> None:
        if self.proc is not None:
            _stop_group(self.proc)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class WorkerProcess:
    """One ``ginbox worker`` process."""

    def __init__(self, env: dict[str, str], log_path: Path):
        self.env = env
        self.log_path = Path(log_path)
        self.proc: subprocess.Popen | None = None

    def start(self) -> "WorkerProcess":
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], cwd=REPO, env=self.env,
                                     stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        return self

    def kill9(self) -> None:
        if self.proc is not None:
            kill9(self.proc)

    def stop(self) -> None:
        if self.proc is not None:
            _stop_group(self.proc)

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""



class WorkerPool:
    """``ginbox worker`` processes on one key prefix and queue, each logging to its own file."""

    def __init__(self, redis_url: str, key_prefix: str, log_dir: Path, **extra: Any):
        self.env = service_env(redis_url, key_prefix, **extra)
        self.log_dir = Path(log_dir)
        self.workers: list[WorkerProcess] = []

    def start(self) -> WorkerProcess:
        worker = WorkerProcess(self.env, self.log_dir / f"worker{len(self.workers)}.log").start()
        self.workers.append(worker)
        return worker

    @staticmethod
    def kill9(worker: WorkerProcess) -> None:
        worker.kill9()

    def stop_all(self) -> None:
        for worker in self.workers:
            worker.stop()

@dataclass
class Reply:
    status: int
    headers: dict
    body: Any
    seconds: float
    raw: bytes = b""

    @property
    def version(self) -> int | None:
        tag = self.headers.get("etag")
        return int(tag.strip('"').partition("-")[0]) if tag else None


class HttpClient:
    """One keep-alive HTTP/1.1 connection; reconnects after a connection error."""

    def __init__(self, host: str, port: int, timeout: float = 30.0):
        self.host = host
        self.port = port
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        return self.conn

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict | None = None) -> tuple[int, dict, bytes]:
        """(status, lower-cased headers, body bytes); one retry on a connection the server closed."""
        for attempt in (0, 1):
            conn = self._connection()
            try:
                conn.request(method, path, body=body, headers=headers or {})
                resp = conn.getresponse()
                data = resp.read()
                hdrs = {k.lower(): v for k, v in resp.getheaders()}
                if hdrs.get("connection", "").lower() == "close":
                    self.close()
                return resp.status, hdrs, data
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError,
                    http.client.CannotSendRequest, http.client.BadStatusLine):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def call(self, method: str, path: str, json_body: Any = None, token: str | None = None,
             headers: dict | None = None) -> Reply:
        """A JSON exchange, timed."""
        hdrs = dict(headers or {})
        body = None
        if json_body is not None:
            body = json.dumps(json_body).encode()
            hdrs["Content-Type"] = "application/json"
        if token is not None:
            hdrs["Authorization"] = f"Bearer {token}"
        started = time.perf_counter()
        status, reply_headers, data = self.request(method, path, body, hdrs)
        elapsed = time.perf_counter() - started
        content_type = reply_headers.get("content-type", "")
        parsed = json.loads(data) if data and "json" in content_type else None
        return Reply(status, reply_headers, parsed, elapsed, data)



def open_stream(port: int, game_id: str, token: str, last_event_id: int | None = None,
                timeout: float = 30.0) -> http.client.HTTPResponse:
    """GET /games/{id}/stream on its own connection; the response, to be read line by line."""
    headers = {"Authorization": f"Bearer {token}"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("GET", f"/games/{game_id}/stream", headers=headers)
    return conn.getresponse()


def read_event_ids(resp: http.client.HTTPResponse, until: float, stop_at: int | None = None) -> tuple[list[int], bool]:
    """(the event ids a stream sent, whether it ended) until it ends, ``until`` (monotonic) passes
    or the event ``stop_at`` has come. A read timeout raises."""
    ids: list[int] = []
    while time.monotonic() < until:
        try:
            line = resp.readline()
        except (http.client.IncompleteRead, ConnectionError):
            return ids, True
        if not line:
            return ids, True
        if line.startswith(b"id: "):
            ids.append(int(line[4:]))
            if ids[-1] == stop_at:
                break
    return ids, False

def _close_socket(sock) -> None:
    """Close a socket another thread may be blocked on (shutdown wakes a blocked recv)."""
    import socket

    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


class FreezingProxy:
    """A TCP relay to a Redis server that freezes when a client sends a matching command.

    Every byte is relayed both ways until a chunk sent by a client matches ``trigger`` for the
    ``nth`` time. Then, in mode "drop", that chunk is swallowed (the command never reaches
    Redis); in mode "forward", it is relayed (Redis runs it) but its answer is not. From that
    moment nothing more is relayed on any connection, so the client process is caught exactly
    there, blocked, until the test kills it.
    """

    def __init__(self, target_host: str, target_port: int, trigger, nth: int = 1, mode: str = "drop",
                 host: str = "127.0.0.1"):
        import socket
        import threading

        if mode not in ("drop", "forward"):
            raise ValueError(mode)
        self.target = (target_host, target_port)
        self.trigger = trigger
        self.nth = nth
        self.mode = mode
        self.matches = 0
        self.frozen = threading.Event()
        self._lock = threading.Lock()
        self._sockets: list = []
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, 0))
        self._listener.listen(64)
        self.host, self.port = self._listener.getsockname()
        self._closed = threading.Event()
        threading.Thread(target=self._accept, name="proxy-accept", daemon=True).start()

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    def _accept(self) -> None:
        import socket
        import threading

        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, src, dst, from_client: bool) -> None:
        tail = b""
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                return
            if not data:
                return
            if self.frozen.is_set():
                continue  # swallow: a frozen relay passes nothing on
            if from_client:
                window = tail + data
                tail = data[-256:]
                with self._lock:
                    hit = not self.frozen.is_set() and self.trigger(window)
                    if hit:
                        self.matches += 1
                        if self.matches >= self.nth:
                            # frozen first, so that not even the answer to this command gets back
                            self.frozen.set()
                            if self.mode == "forward":
                                try:
                                    dst.sendall(data)
                                except OSError:
                                    pass
                            continue
            try:
                dst.sendall(data)
            except OSError:
                return

    def release(self) -> None:
        """Cut every relayed connection, then relay new ones again (the trigger is spent)."""
        with self._lock:
            sockets, self._sockets = self._sockets, []
            self.nth = float("inf")
            self.frozen.clear()
        for sock in sockets:
            _close_socket(sock)

    def close(self) -> None:
        self._closed.set()
        self._listener.close()
        with self._lock:
            for sock in self._sockets:
                _close_socket(sock)
