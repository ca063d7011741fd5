"""Liveness and readiness probes."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify
import redis

from service.api.problems import problem_response

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz():
    """The process is alive."""
    return jsonify({"status": "ok"})


@bp.get("/readyz")
def readyz():
    """Redis answers: the service can take requests; whether it takes new games (the memory guard)."""
    ext = current_app.extensions["ginbox"]
    try:
        ext.redis.ping()
        memory = ext.memory_guard.standing()
    except (redis.RedisError, OSError) as exc:
        return problem_response(503, "redis_unavailable", f"Redis is not reachable: {type(exc).__name__}",
                                headers={"Retry-After": "1"})
    # a full server still serves the games under way: it stays ready, and says it takes no new ones
    body = {"status": "ready", "new_games": not (memory and memory.full)}
    if memory is not None:
        body["memory"] = {"used": memory.used, "max": memory.max, "guard_share": memory.guard_share}
    return jsonify(body)
