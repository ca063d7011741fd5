"""The Flask application factory."""

from __future__ import annotations

from typing import Callable

from flask import Flask, g, request

from service.config import Settings

# answered without counting against any rate limit: probes and the static documentation
UNLIMITED_ENDPOINTS = {"health.healthz", "health.readyz", "docs.openapi_yaml", "docs.docs_page", "docs.docs_asset",
                       "docs.problem_types", "docs.problem_type", "metrics.metrics",
                       "pages.lobby_page", "pages.play_page", "pages.watch_page", "pages.replay_page",
                       "pages.web_asset", "guides.guides_index", "guides.guide_page", "guides.guide_image"}

#: the Retry-After of a creation refused by the memory guard: games end, and unstarted ones expire
FULL_RETRY_AFTER_S = 60


class _App(Flask):
    """Flask, with the answer of ``ensure_sync`` kept per function.

    Flask asks ``ensure_sync`` about every hook and view on every request, and each answer costs
    a look at the function's code flags; a function's answer never changes, so it is kept.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._sync: dict = {}

    def ensure_sync(self, func):
        try:
            return self._sync[func]
        except KeyError:
            sync = super().ensure_sync(func)
            # hooks and views are a fixed set; a function made per request (after_this_request)
            # must not grow the cache without end
            if len(self._sync) < 256:
                self._sync[func] = sync
            return sync
        except TypeError:  # an unhashable callable: asked every time
            return super().ensure_sync(func)


def create_app(settings: Settings | None = None, *,
               bot_scheduler: Callable[..., None] | None = None) -> Flask:
    """Build the app on the components of service.composition (no connection at import time).

    ``bot_scheduler(game_id, state, whole=False)`` is called after every successful append; by default it
    enqueues the turn of a bot that has to act on the RQ queue (service.bots).
    """
    settings = settings or Settings.from_env()
    if not settings.redis_url:
        raise RuntimeError("REDIS_URL is not set (ginbox serve starts an embedded Redis and sets it)")
    # no /static route: every URL the app answers is in openapi.yaml; the docs assets have their own
    app = _App(__name__, static_folder=None)
    # every address is exactly one of openapi.yaml's: werkzeug would answer a path holding '//'
    # with a 308 redirect (an HTML body, and for '//games' a Location on another host) to the path
    # with the slashes merged; unmerged, it is an address no route serves (404 like any other).
    # Set before any route is added: each rule takes the map's setting when it is added. Slashes
    # stay strict (no rule but "/" and "/docs/", the docs page served there too, ends in one), so no
    # address is redirected to another
    app.url_map.merge_slashes = False
    app.url_map.strict_slashes = True
    if settings.proxy_hops < 0:
        raise ValueError("GINBOX_PROXY_HOPS is the number of trusted proxies in front of the API, 0 or more")
    if settings.proxy_hops:
        # the client's address (what the rate limit counts) is the one the nearest trusted proxy saw:
        # the proxy_hops-th X-Forwarded-For entry from the right. Entries further left may have
        # been written by the client itself, so without trusted proxies the header is ignored
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.proxy_hops, x_proto=0, x_host=0, x_port=0,
                                x_prefix=0)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    # OPTIONS is not part of the API: answering it automatically would add undocumented operations
    # (a browser's CORS preflight is answered by service.api.cors before routing)
    app.config["PROVIDE_AUTOMATIC_OPTIONS"] = False
    app.json.sort_keys = False

    from service import composition

    # what the views reach through current_app.extensions["ginbox"] (composition.ApiComponents)
    app.extensions["ginbox"] = composition.build_api(settings, bot_scheduler=bot_scheduler)

    from service.api import analysis, arena as arena_api, docs, game_analysis, games as games_api, guides, health, pages
    from service.api.cors import init_cors
    from service.api.http import refuse_long_uri, refuse_unrouted_path
    from service.api.problems import register_error_handlers

    for bp in (health.bp, docs.bp, games_api.bp, game_analysis.bp, analysis.bp, pages.bp, guides.bp, arena_api.bp):
        app.register_blueprint(bp)
    register_error_handlers(app)
    # an over-long URI (414) is refused before anything else, routing included, looks at it
    app.before_request(refuse_long_uri)
    app.before_request(refuse_unrouted_path)
    init_cors(app, settings.cors_origins)
    app.before_request(_make_guard(app))
    app.after_request(_make_rate_limit_fields())
    # a query parameter the operation does not take (or one given twice) is refused, for every
    # operation at once, before its view reads the query (service.api.query)
    from service.api.query import refuse_unlisted_query

    app.before_request(refuse_unlisted_query)

    from service.logging import init_request_logging
    from service.metrics import init_metrics

    init_request_logging(app)
    init_metrics(app)
    return app


def _make_guard(app: Flask) -> Callable[[], None]:
    """The hook that refuses oversized bodies before any view reads them, then counts the request.

    Its imports are made once, here, and not on every request: the hook runs before every answer.
    """
    from service.api.auth import presented_token
    from service.api.problems import ApiError
    from service.ratelimit import identities
    from service.ratelimit.scope import CREATION_ENDPOINTS, refusal_detail

    extensions = app.extensions

    def _guard():
        ext = extensions["ginbox"]  # composition.ApiComponents
        length = request.content_length
        if length is not None and length > ext.settings.max_body_bytes:
            raise ApiError(413, "body_too_large",
                           f"the request body is larger than {ext.settings.max_body_bytes} bytes")
        endpoint = request.endpoint
        if endpoint in UNLIMITED_ENDPOINTS:
            return None
        # a token the server issued is counted on its own, not against its address (service.ratelimit)
        token = presented_token(required=False, strict=False)
        issued = bool(token) and ext.limiter.limit > 0 and ext.token_check.issued(token, request.view_args)
        verdict = ext.limiter.hit(*identities(request.remote_addr or "unknown", token, issued, endpoint))
        g.rate_limit_verdict = verdict  # its RateLimit fields are added to the answer (_rate_limit_fields)
        if not verdict.allowed:
            raise ApiError(429, "rate_limited", refusal_detail(verdict),
                           headers={"Retry-After": str(verdict.retry_after)})
        if endpoint in CREATION_ENDPOINTS and ext.memory_guard.full():
            raise ApiError(503, "server_full",
                           "the server is too full to take new games now; the games under way go on",
                           headers={"Retry-After": str(FULL_RETRY_AFTER_S)})
        return None

    return _guard


def _make_rate_limit_fields() -> Callable:
    """The hook that adds the RateLimit-Policy and RateLimit fields of the request's count to its
    answer (429s included)."""
    from service.ratelimit.scope import headers

    def _rate_limit_fields(response):
        verdict = g.get("rate_limit_verdict")
        if verdict is not None:
            response.headers.update(headers(verdict))
        return response

    return _rate_limit_fields
