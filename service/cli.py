"""The ``ginbox`` command: ``serve`` (API + one worker + embedded Redis) and ``worker``."""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from service.config import Settings

#: gunicorn worker classes the API is run and tested under
WORKER_CLASSES = ("gevent", "gthread")


def worker_args(worker_class: str = "gevent", threads: int = 16, connections: int = 1000) -> list[str]:
    """gunicorn's options for the API's worker class (``ginbox serve``, the tests and the benchmark use these).

    gevent is the default: one event loop per process serves its requests, and a live stream
    (``/games/{id}/stream``) costs a greenlet rather than an OS thread. On the load benchmark
    (tests/bench/bench_api.py, eight runs each way on one machine) it answered 1-33% more moves
    per second than 2 x 8 gthread threads (16% in the median): a request hands the interpreter
    over between greenlets without a thread switch and a lock hand-off.
    ``connections`` bounds the requests (and streams) one gevent process serves at once.
    gthread (``threads`` per process) remains for environments where monkey-patching is unwelcome.
    """
    if worker_class == "gevent":
        return ["--worker-class", "gevent", "--worker-connections", str(connections)]
    if worker_class == "gthread":
        return ["--worker-class", "gthread", "--threads", str(threads)]
    raise ValueError(f"unknown worker class {worker_class!r} (one of {', '.join(WORKER_CLASSES)})")


def _start_embedded_redis(settings: Settings):
    from service.redis_process import RedisServerProcess

    data_dir = Path(settings.data_dir).resolve() / "redis"
    server = RedisServerProcess(data_dir).start()
    print(f"ginbox: embedded Redis on {server.url}, data in {data_dir}", flush=True)
    return server


def cmd_serve(args) -> int:
    """Run the HTTP API under gunicorn, one bot worker and, without REDIS_URL, an embedded Redis."""
    settings = Settings.from_env()
    redis_server = None
    if not settings.redis_url:
        redis_server = _start_embedded_redis(settings)
        settings.redis_url = redis_server.url
    env = dict(os.environ, REDIS_URL=settings.redis_url)
    if "PROMETHEUS_MULTIPROC_DIR" not in env:
        # /metrics adds up the counts of every gunicorn and worker process through this directory;
        # it must start empty, or a previous run's counts would be added in
        metrics_dir = Path(settings.data_dir).resolve() / "metrics"
        shutil.rmtree(metrics_dir, ignore_errors=True)
        metrics_dir.mkdir(parents=True)
        env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
    children: list[subprocess.Popen] = []
    try:
        if args.workers_bots > 0:
            for _ in range(args.workers_bots):
                children.append(subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env))
        gunicorn = [
            sys.executable, "-m", "gunicorn",
            "--bind", f"{args.host}:{args.port}",
            "--workers", str(args.processes),
            *worker_args(args.worker_class, args.threads, args.connections),
            "--timeout", "0",  # streams stay open; a hung request is cut by Redis timeouts instead
            "--config", "python:service.metrics",  # its child_exit hook drops a dead process's samples
            "service.wsgi:app",
        ]
        api = subprocess.Popen(gunicorn, env=env)
        children.append(api)
        print(f"ginbox: API on http://{args.host}:{args.port} (docs at /docs)", flush=True)

        stopping = False

        def _stop(signum, frame):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGTERM, _stop)
        signal.signal(signal.SIGINT, _stop)
        while not stopping and all(c.poll() is None for c in children):
            time.sleep(0.3)
        return 0 if stopping else 1
    finally:
        for c in children:
            if c.poll() is None:
                c.terminate()
        for c in children:
            try:
                c.wait(10)
            except subprocess.TimeoutExpired:
                c.kill()
        if redis_server:
            redis_server.stop()


def cmd_worker(args) -> int:
    """Run an RQ worker that plays bot turns (and sweeps stalled games)."""
    from workers.runner import run_worker

    settings = Settings.from_env()
    if not settings.redis_url:
        print("ginbox worker: REDIS_URL is not set", file=sys.stderr)
        return 2
    return run_worker(settings, burst=args.burst)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ginbox", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help=cmd_serve.__doc__)
    serve.add_argument("--host", default=os.environ.get("GINBOX_HOST", "127.0.0.1"))
    serve.add_argument("--port", type=int, default=int(os.environ.get("GINBOX_PORT", "8000")))
    serve.add_argument("--processes", type=int, default=int(os.environ.get("GINBOX_PROCESSES", "2")))
    serve.add_argument("--worker-class", choices=WORKER_CLASSES,
                       default=os.environ.get("GINBOX_WORKER_CLASS", "gevent"),
                       help="gunicorn worker class of the API (default gevent)")
    serve.add_argument("--connections", type=int, default=int(os.environ.get("GINBOX_CONNECTIONS", "1000")),
                       help="simultaneous connections per API process (gevent)")
    serve.add_argument("--threads", type=int, default=int(os.environ.get("GINBOX_THREADS", "16")),
                       help="threads per API process (gthread)")
    serve.add_argument("--workers-bots", type=int, default=int(os.environ.get("GINBOX_BOT_WORKERS", "1")),
                       help="bot worker processes to start beside the API (0 for none)")
    serve.set_defaults(func=cmd_serve)
    worker = sub.add_parser("worker", help=cmd_worker.__doc__)
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    worker.set_defaults(func=cmd_worker)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
