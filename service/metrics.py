"""Prometheus metrics: GET /metrics in the text exposition format.

Counters live in the process that counts them; without more, each process exposes only its own counts.
To add up several processes' counts, set ``PROMETHEUS_MULTIPROC_DIR`` before they start.
It names an empty directory shared by those processes (one host).
gunicorn should call :func:`child_exit` from its ``child_exit`` hook.
"""

# Several processes: under gunicorn with several worker processes, or to see the bot workers'
# counters on the API's /metrics, PROMETHEUS_MULTIPROC_DIR is needed.

from __future__ import annotations

import hashlib
import hmac
import json
import os
import time

from flask import Blueprint, Flask, Response, current_app, g, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily

# the workers' bot-turn metrics, declared apart so that a worker records them without Flask.
# They count bot turns and their durations, by kind (move, advice, clock) and outcome.
# ``ginbox worker`` records them for each turn it plays: a turn job's,
# or each turn of a match's board game played whole by one job.
from service.logging import route_template
from service.bot_metrics import (BOT_TURN_SECONDS, BOT_TURNS, bot_turn, observe_bot_turn)

__all__ = ["BOT_TURN_SECONDS", "BOT_TURNS", "bot_turn", "observe_bot_turn", "init_metrics", "child_exit"]

METRICS_EXTENSION = "ginbox_metrics"
#: the command endpoints whose answers count as moves and conflicts
MOVE_ENDPOINT = "games.post_move"
COMMAND_ENDPOINTS = {"games.post_move", "games.post_advice"}

# request latencies from a cached read (~1 ms) to a stream's first byte or a slow Redis
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

# Every HTTP request is counted and timed (a counter and a latency histogram), by method, route
# template and status.
# The route is its template (/games/<game_id>/moves), never the raw path, so the number of series stays bounded.
REQUESTS = Counter("ginbox_http_requests", "HTTP requests answered", ["method", "route", "status"])
LATENCY = Histogram("ginbox_http_request_duration_seconds", "Time to answer an HTTP request (first byte of a stream)",
                    ["method", "route"], buckets=LATENCY_BUCKETS)
# moves recorded through the API (2xx answers of POST /games/{id}/moves), and the conflicts the
# command endpoints answer (409 and 412, by their problem ``code``)
MOVES = Counter("ginbox_moves", "Moves recorded through the API")
CONFLICTS = Counter("ginbox_conflicts", "Commands refused because of the game's state or version",
                    ["code"])

metrics_bp = Blueprint("metrics", __name__)


# -- HTTP requests ---------------------------------------------------------------------------------

def _start_timer() -> None:
    g._ginbox_metrics_t0 = time.perf_counter()


def _route() -> str:
    """The route template of the request, as the label of its series (``/games/<game_id>``)."""
    rule = request.url_rule
    return route_template(rule) if rule is not None else "<unmatched>"


def _problem_code(response) -> str:
    """The ``code`` of a problem+json answer ("unknown" if it has none)."""
    if response.mimetype != "application/problem+json" or response.is_streamed:
        return "unknown"
    try:
        code = json.loads(response.get_data()).get("code")
    except (ValueError, AttributeError):
        return "unknown"
    return code if isinstance(code, str) and len(code) <= 64 else "unknown"


def _record(response):
    t0 = g.pop("_ginbox_metrics_t0", None)
    route = _route()
    method = request.method
    status = response.status_code
    REQUESTS.labels(method=method, route=route, status=str(status)).inc()
    if t0 is not None:
        LATENCY.labels(method=method, route=route).observe(time.perf_counter() - t0)
    endpoint = request.endpoint
    if endpoint == MOVE_ENDPOINT and 200 <= status < 300:
        MOVES.inc()
    elif endpoint in COMMAND_ENDPOINTS and status in (409, 412):
        CONFLICTS.labels(code=_problem_code(response)).inc()
    return response


# -- what is read from Redis at scrape time --------------------------------------------------------

class QueueCollector:
    """Gauges read from Redis when /metrics is scraped: queue length, jobs, games waiting on a bot."""

    # They are each bot queue's length (turns, boards), its jobs running and scheduled,
    # and the games waiting on a bot; ginbox_redis_up is 0 when Redis did not answer.
    # The jobs running are the current jobs of the workers alive.
    # Each worker says it is alive every second (workers.sweeper.Heartbeat).

    def __init__(self, connection, queue_name: str, key_prefix: str, board_queue_name: str | None = None):
        self.connection = connection
        #: label -> RQ queue name: bot turns (and advice, turn clocks), and a match's whole board games
        self.queues = {"turns": queue_name, **({"boards": board_queue_name} if board_queue_name else {})}
        self.key_prefix = key_prefix

    def collect(self):
        from service.bots.gauges import read_queue_gauges

        up = GaugeMetricFamily("ginbox_redis_up", "1 when Redis answered the scrape's queries")
        # one series per queue (label ``queue``: turns, boards), so a full board queue is told apart
        # from bot turns waiting
        queued = GaugeMetricFamily("ginbox_bot_queue_length", "Bot jobs waiting in the queue", labels=["queue"])
        started = GaugeMetricFamily("ginbox_bot_jobs_running", "Bot jobs a live worker is running", labels=["queue"])
        scheduled = GaugeMetricFamily("ginbox_bot_jobs_scheduled", "Jobs waiting for their time (retries, turn clocks)",
                                      labels=["queue"])
        waiting = GaugeMetricFamily("ginbox_games_waiting_on_bot", "Games whose next move is a bot's")
        try:
            gauges = read_queue_gauges(self.connection, self.queues, self.key_prefix, time.time())
        except Exception:  # noqa: BLE001 (a scrape must answer even when Redis does not)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        for label, counts in gauges.queues.items():
            queued.add_metric([label], counts.queued)
            started.add_metric([label], counts.running)
            scheduled.add_metric([label], counts.scheduled)
        waiting.add_metric([], gauges.waiting)
        yield from (up, queued, started, scheduled, waiting)


def _process_registry():
    """The registry of counted samples: this process's, or every process's in multiprocess mode."""
    # In multiprocess mode (prometheus client's), each process writes its samples to
    # PROMETHEUS_MULTIPROC_DIR, and /metrics adds them up.
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    from prometheus_client import REGISTRY

    return REGISTRY


def _require_scrape_token() -> None:
    """401 ``metrics_token_required`` unless the request presents GINBOX_METRICS_TOKEN as its
    bearer token, when that is set (unset: /metrics is public). Compared in constant time, as
    SHA-256 digests so that not even the token's length shows."""
    ext = current_app.extensions.get("ginbox")
    expected = getattr(getattr(ext, "settings", None), "metrics_token", None)
    if not expected:
        return
    from service.api.problems import ApiError, bearer_challenge

    scheme, _, presented = request.headers.get("Authorization", "").strip().partition(" ")
    presented = presented.strip() if scheme.lower() == "bearer" else ""
    if presented and hmac.compare_digest(hashlib.sha256(presented.encode("utf-8")).digest(),
                                         hashlib.sha256(expected.encode("utf-8")).digest()):
        return
    raise ApiError(401, "metrics_token_required",
                   "this server's /metrics needs its metrics token: 'Authorization: Bearer <token>'",
                   headers={"WWW-Authenticate": bearer_challenge(bool(presented))})


@metrics_bp.get("/metrics")
def metrics():
    """Every metric in the Prometheus text format (to the bearer of GINBOX_METRICS_TOKEN, when set)."""
    _require_scrape_token()
    state = current_app.extensions[METRICS_EXTENSION]
    body = generate_latest(_process_registry()) + generate_latest(state["scrape_registry"])
    return Response(body, content_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})


def init_metrics(app: Flask) -> None:
    """Measure every request of ``app`` and serve GET /metrics (idempotent)."""
    if METRICS_EXTENSION in app.extensions:
        return
    scrape_registry = CollectorRegistry(auto_describe=False)
    ext = app.extensions.get("ginbox")
    if ext is not None:
        settings = ext.settings
        connection = getattr(ext, "queue_redis", None) or ext.redis
        scrape_registry.register(QueueCollector(connection, settings.queue_name, settings.key_prefix,
                                                settings.board_queue))
    app.extensions[METRICS_EXTENSION] = {"scrape_registry": scrape_registry}
    # a scrape must not count against a rate limit (nor fail when Redis, which keeps the
    # counts, is down): service.app's UNLIMITED_ENDPOINTS names it
    # first of all before_request functions, so that a request refused by an earlier hook
    # (rate limit, body size) is timed too
    app.before_request_funcs.setdefault(None, []).insert(0, _start_timer)
    app.after_request(_record)
    app.register_blueprint(metrics_bp)


def child_exit(server, worker) -> None:
    """gunicorn ``child_exit`` hook: drop the live samples of a worker process that ended."""
    # gunicorn should call it, so that a dead worker's live samples are dropped
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


# -- the rest of gunicorn's configuration (this module is its config: --config python:service.metrics) --

#: the longest request line gunicorn reads: its maximum (its default, 4094, would answer longer
#: URIs itself). Every URI up to it reaches the app, which refuses those over
#: service.api.http.MAX_URI_BYTES with a problem+json 414 uri_too_long.
limit_request_line = 8190


def on_starting(server) -> None:
    """gunicorn hook, in its master before it listens or starts an API process: check the settings.

    They are checked as ``ginbox serve`` checks them.
    A value that cannot be read or used, or no REDIS_URL, stops gunicorn with exit status 2.
    It prints one line naming the variable.
    """
    # Without this check, each API process would print a traceback,
    # and gunicorn would end with "Worker failed to boot", status 3.
    import sys

    from service.config import SettingError, Settings

    try:
        settings = Settings.from_env()
    except SettingError as err:
        print(f"ginbox: {err}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
    if not settings.redis_url:
        print("ginbox: REDIS_URL is not set: the API needs the Redis that holds the games "
              "(ginbox serve starts an embedded one)", file=sys.stderr, flush=True)
        raise SystemExit(2)


def pre_request(worker, req) -> None:
    """gunicorn hook, before it reads a request's headers into the app's environ: no ``100 Continue``
    for a body the app will refuse for its size (service.serve.expect)."""
    from service.serve.expect import withhold_continue

    withhold_continue(req)
    worker.log.debug("%s %s", req.method, req.path)  # what gunicorn's own hook does


def post_worker_init(worker) -> None:
    """gunicorn hook, in each worker process: the errors gunicorn answers itself (a request line
    over limit_request_line, too many headers, a garbled request) are problem+json too."""
    from service.api.problems import install_gunicorn_problem_errors
    from service.api.stopping import end_streams_on_stop

    install_gunicorn_problem_errors()
    # a live stream ends at once on a stop, rather than holding its process the graceful timeout
    end_streams_on_stop(worker)
