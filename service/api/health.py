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
    """Redis answers: the service can take requests."""
    try:
        current_app.extensions["ginbox"].redis.ping()
    except (redis.RedisError, OSError) as exc:
        return problem_response(503, "redis_unavailable", f"Redis is not reachable: {type(exc).__name__}",
                                headers={"Retry-After": "1"})
    return jsonify({"status": "ready"})
