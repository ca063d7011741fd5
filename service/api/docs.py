"""The OpenAPI document, the interactive docs page that renders it (all assets local), and the
catalogue of problem types that error answers' ``type`` points at."""

from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path

from flask import Blueprint, Response

from service.api.http import json_response
from service.api.problem_types import PROBLEM_TYPES, entry_json
from service.api.problems import ApiError

bp = Blueprint("docs", __name__)

# asset name -> (where it lives, media type); nothing else is ever read from disk here
_OWN = {"docs.js": "text/javascript"}
_SWAGGER = {"swagger-ui.css": "text/css", "swagger-ui-bundle.js": "text/javascript"}


#: the pages' headers (service.api.pages), with the style the Swagger UI sets on its elements
#: (React's inline styles) allowed: it runs only its own files and talks only to this server, nobody
#: may frame it, no address leaks as a referrer, and no asset is sniffed into another type
DOCS_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                               "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


def _static() -> Path:
    return Path(str(importlib.resources.files("service") / "static"))


@functools.lru_cache(maxsize=1)
def spec_text() -> str:
    """The OpenAPI document shipped in the package."""
    return (importlib.resources.files("service") / "openapi.yaml").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=8)
def _asset(name: str) -> bytes | None:
    if name in _OWN:
        return (_static() / name).read_bytes()
    try:
        from swagger_ui_bundle import swagger_ui_path
    except ImportError:  # the page then shows the spec as text
        return None
    path = Path(str(swagger_ui_path)) / name
    return path.read_bytes() if path.is_file() else None


@bp.get("/openapi.yaml")
def openapi_yaml():
    """The API's OpenAPI 3.1 document."""
    return Response(spec_text(), mimetype="application/yaml")


@bp.get("/docs")
@bp.get("/docs/")
def docs_page():
    """The interactive docs page (also at /docs/, the address a hand may well type: its assets'
    addresses are absolute, so it renders the same there)."""
    resp = Response((_static() / "docs.html").read_bytes(), mimetype="text/html")
    resp.headers.update(DOCS_HEADERS)
    return resp


@bp.get("/docs/<asset>")
def docs_asset(asset: str):
    """A script or style sheet of the docs page."""
    media = _OWN.get(asset) or _SWAGGER.get(asset)
    body = _asset(asset) if media else None
    if body is None:
        raise ApiError(404, "not_found", f"no docs asset {asset!r}")
    resp = Response(body, mimetype=media)
    resp.headers["Cache-Control"] = "public, max-age=3600"
    resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp


@bp.get("/problems")
def problem_types():
    """Every problem type: the codes error answers carry, their statuses and what to do."""
    return json_response({"problem_types": [entry_json(code) for code in sorted(PROBLEM_TYPES)]})


@bp.get("/problems/<code>")
def problem_type(code: str):
    """One problem type: what an error answer's ``type`` points at."""
    if code not in PROBLEM_TYPES:
        raise ApiError(404, "not_found", f"no problem type {code!r}; GET /problems lists them")
    return json_response(entry_json(code))
