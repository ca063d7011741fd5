"""The Flask application factory."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Flask

from service.config import Settings
from service.connections import redis_client


@dataclass
class Ginbox:
    """What the views reach through ``current_app.extensions["ginbox"]``."""

    settings: Settings
    redis: Any


def create_app(settings: Settings | None = None) -> Flask:
    """Build the app; the Redis connection is made here and nowhere at import time."""
    settings = settings or Settings.from_env()
    if not settings.redis_url:
        raise RuntimeError("REDIS_URL is not set (ginbox serve starts an embedded Redis and sets it)")
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    app.extensions["ginbox"] = Ginbox(settings=settings, redis=redis_client(settings.redis_url, settings.redis_timeout_s))

    from service.api import health

    app.register_blueprint(health.bp)
    return app
