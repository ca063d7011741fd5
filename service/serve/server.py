"""``ginbox serve``'s run: the lock taken, then the embedded Redis, the bot workers and the API
started, watched until a stop or a child that cannot be kept running, and stopped in order."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from service.config import Settings
from service.redis_process import RedisGaveUp, RedisServerProcess, RedisSupervisor, describe_exit, die_with_parent

from .bot_workers import SupervisedWorker, WorkerGaveUp
from .lock import DataDirBusy, DataDirLock

#: seconds ``ginbox serve`` waits for each child (the API, a bot worker) to end once asked to, before
#: it kills it: gunicorn's graceful stop with room to spare; a bot worker ends its job first (a turn
#: takes a fraction of a second; a match's board game stops between two turns, see workers/arena_jobs.py)
CHILD_STOP_S = 10


def _start_embedded_redis(data_dir: Path, lock: DataDirLock):
    # its own session, as every child of ginbox serve: a Ctrl-C at the terminal reaches ginbox serve
    # alone, which stops Redis last. die_with_parent: if ginbox serve is killed, Redis gets SIGTERM, a
    # clean shutdown of the append-only file; it holds the lock until it has exited, so a new
    # ginbox serve can never start a second redis-server on the same file meanwhile
    server = RedisServerProcess(data_dir / "redis", pass_fds=(lock.fd,), preexec_fn=die_with_parent()).start()
    print(f"ginbox: embedded Redis on {server.url}, data in {server.data_dir}", flush=True)
    return server


def listen_problem(host: str, port: int) -> tuple[int, str] | None:
    """Why the API could not listen on ``host``:``port``, with the exit status to give (1: the port
    is taken, 2: an address this machine cannot listen on); None when it can. Bound and let go
    at once, with SO_REUSEADDR as gunicorn binds."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as err:
        return 2, f"cannot listen on {host}:{port}: {getattr(err, 'strerror', None) or err} (--host, GINBOX_HOST)"
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                return 1, (f"port {port} on {host} is already in use: stop what listens there, or give this "
                           "server another port (--port, GINBOX_PORT)")
            return 2, f"cannot listen on {host}:{port}: {err.strerror or err} (--host, --port; GINBOX_HOST, GINBOX_PORT)"
    return None



def run_server(host: str, port: int, connections: int, api_argv: list[str],
               worker_argvs: list[tuple[str, list[str]]]) -> int:
    """Run the API (``api_argv``, gunicorn listening on ``host``:``port``), the bot workers (name,
    ``ginbox`` arguments) and, without REDIS_URL, an embedded Redis, until stopped; the exit status."""
    settings = Settings.from_env()
    data_dir = Path(settings.data_dir).resolve()
    try:
        # before anything is started or cleared: the data directory may belong to a running server
        lock = DataDirLock(data_dir).acquire()
    except DataDirBusy as exc:
        print(f"ginbox serve: refusing to start: {exc}", file=sys.stderr, flush=True)
        return 1
    busy = listen_problem(host, port)
    if busy is not None:
        # before Redis and the workers: gunicorn would try for some 5 s, then end the whole server
        print(f"ginbox serve: refusing to start: {busy[1]}", file=sys.stderr, flush=True)
        lock.release()
        return busy[0]
    api_url = f"http://{host}:{port}"
    lock.update(pid=os.getpid(), api=api_url, data_dir=str(data_dir))
    stopping = False

    def _stop(signum, frame):
        nonlocal stopping
        stopping = True

    # from here on a stop (SIGTERM, a terminal's Ctrl-C or hang-up) is a flag the loop below reads:
    # whatever was started meanwhile is then stopped in order
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _stop)
    redis_server = supervisor = None
    if not settings.redis_url:
        redis_server = _start_embedded_redis(data_dir, lock)
        settings.redis_url = redis_server.url
        lock.update(redis_pid=redis_server.pid, redis_url=redis_server.url)
        supervisor = RedisSupervisor(redis_server, on_restart=lambda s: lock.update(redis_pid=s.pid))
    # GINBOX_CONNECTIONS: the API process sizes its live streams' Redis pool to its connections
    env = dict(os.environ, REDIS_URL=settings.redis_url, GINBOX_CONNECTIONS=str(connections))
    if "PROMETHEUS_MULTIPROC_DIR" not in env:
        # /metrics adds up the counts of every gunicorn and worker process through this directory;
        # it must start empty, or a previous run's counts would be added in
        metrics_dir = data_dir / "metrics"
        shutil.rmtree(metrics_dir, ignore_errors=True)
        metrics_dir.mkdir(parents=True)
        env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
    workers = [SupervisedWorker(name, worker_argv, env) for name, worker_argv in worker_argvs]
    api: subprocess.Popen | None = None
    try:
        for worker in workers:
            worker.start()
        # as a worker: its own session (a terminal's SIGINT made its gevent processes print
        # tracebacks; SIGTERM from ginbox serve is gunicorn's graceful stop), and SIGTERM if ginbox
        # serve dies
        api = subprocess.Popen(api_argv, env=env, start_new_session=True, preexec_fn=die_with_parent())
        print(f"ginbox: the lobby is at {api_url}/ (play in a browser there); API docs at {api_url}/docs, "
              f"guides at {api_url}/guides", flush=True)
        if settings.rate_limit_per_minute:
            print(f"ginbox: rate limit {settings.rate_limit_per_minute} requests a minute per token, or per "
                  "address without one (GINBOX_RATE_LIMIT)", flush=True)
        else:
            print("ginbox: no rate limit (GINBOX_RATE_LIMIT=0)", flush=True)

        # this loop runs in the main thread, which started every child: their parent-death signal
        # follows the thread that forked them, and a restarted redis-server or worker is forked here too
        while not stopping:
            if api.poll() is not None:
                # gunicorn itself starts its API processes again; its own end is the server's
                print(f"ginbox: the API (gunicorn) (pid {api.pid}) {describe_exit(api.returncode)}; stopping",
                      file=sys.stderr, flush=True)
                return 1
            try:
                for worker in workers:
                    worker.poll()
            except WorkerGaveUp as exc:
                print(f"ginbox: {exc}\nginbox: stopping", file=sys.stderr, flush=True)
                return 1
            if supervisor is not None:
                try:
                    supervisor.poll()
                except RedisGaveUp as exc:
                    print(f"ginbox: {exc}\nginbox: stopping", file=sys.stderr, flush=True)
                    return 1
            time.sleep(0.3)
        return 0
    finally:
        named = [("the API (gunicorn)", api), *((w.name, w.proc) for w in workers)]
        children = [(name, c) for name, c in named if c is not None]
        for _, c in children:
            if c.poll() is None:
                c.terminate()
        for name, c in children:
            try:
                c.wait(CHILD_STOP_S)
            except subprocess.TimeoutExpired:
                print(f"ginbox: {name} (pid {c.pid}) did not stop within {CHILD_STOP_S} s; killing it",
                      file=sys.stderr, flush=True)
                c.kill()
                c.wait()
        if redis_server:
            redis_server.stop()
        lock.release()

