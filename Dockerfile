# A slim image running the ginbox API under gunicorn; the same image runs a bot worker
# with `docker run IMAGE ginbox worker`. Redis runs in its own container (see service/docs/OPERATE.md).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/ginbox-metrics \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md openapi.yaml ./
COPY service ./service
COPY schemas ./schemas
COPY workers ./workers
# A C compiler for the install only: it builds the optional speed-ups (the bots' playouts among
# them), then leaves the image.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && pip install . \
    && apt-get purge -y --auto-remove gcc libc6-dev && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 ginbox \
    && mkdir -p /tmp/ginbox-metrics && chown ginbox /tmp/ginbox-metrics
USER ginbox

EXPOSE 8000
# REDIS_URL must point at a Redis server (the image has no embedded one). --graceful-timeout 2, as
# `ginbox serve` gives it: a stop closes the live streams after 2 s (their clients reconnect),
# well within the 10 s `docker stop` waits before it kills the container.
CMD ["gunicorn", "--bind", "0.0.0.0:8000", "--workers", "2", "--worker-class", "gevent", "--worker-connections", "1000", \
     "--timeout", "0", "--graceful-timeout", "2", "--config", "python:service.metrics", "service.wsgi:app"]
