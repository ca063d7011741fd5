"""The query parameters the server lets through are exactly those openapi.yaml lists, per operation.

service.api.query holds, per endpoint, the query parameters it takes; everything else is refused
before the view. This holds that table to the spec: each operation's ``in: query`` parameters,
plus ``token`` where one of its security schemes is an API key in the query. The pages, whose
query string nothing reads, are exactly the operations tagged ``pages`` and the docs page; every
other operation documents the 400 ``invalid_query`` its refusal answers.
"""

from __future__ import annotations

import re

import yaml

from service.api.query import PAGE_ENDPOINTS, QUERY_PARAMETERS
from support.apiclient import SPEC_PATH

SPEC = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
METHODS = {"get", "post", "put", "patch", "delete"}
#: the documentation page and its assets: a page, though tagged with the service's probes
DOCS_PAGES = {"getDocs", "getDocsWithSlash", "getDocsAsset"}


def _resolve(node: dict, kind: str) -> dict:
    return SPEC["components"][kind][node["$ref"].rsplit("/", 1)[-1]] if "$ref" in node else node


def _spec_query(path: str, method: str) -> set[str]:
    item = SPEC["paths"][path]
    op = item[method]
    declared = [_resolve(p, "parameters") for p in item.get("parameters", []) + op.get("parameters", [])]
    names = {p["name"] for p in declared if p["in"] == "query"}
    schemes = SPEC["components"]["securitySchemes"]
    for requirement in op.get("security", SPEC.get("security", [])):
        for scheme in requirement:
            if schemes[scheme]["type"] == "apiKey" and schemes[scheme]["in"] == "query":
                names.add(schemes[scheme]["name"])
    return names


def _endpoints(api_app) -> dict[tuple[str, str], str]:
    """(method, spec path) -> the app's endpoint."""
    out = {}
    for rule in api_app.url_map.iter_rules():
        path = re.sub(r"<(?:[a-z_]+(?:\([^)]*\))?:)?([A-Za-z_][A-Za-z0-9_]*)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            out[(method.lower(), path)] = rule.endpoint
    return out


def _operations():
    for path, item in SPEC["paths"].items():
        for method, op in item.items():
            if method in METHODS:
                yield method, path, op


def test_each_operation_takes_exactly_the_query_parameters_the_spec_lists(api_app):
    endpoints = _endpoints(api_app)
    pages, taken = set(), {}
    for method, path, op in _operations():
        endpoint = endpoints[(method, path)]
        if "pages" in op.get("tags", []) or op["operationId"] in DOCS_PAGES:
            pages.add(endpoint)
            continue
        taken[endpoint] = _spec_query(path, method)
    assert pages == PAGE_ENDPOINTS
    assert {e: names for e, names in taken.items() if names} == {e: set(n) for e, n in QUERY_PARAMETERS.items()}


def test_every_operation_but_the_pages_documents_the_400_of_a_refused_query():
    missing = []
    for method, path, op in _operations():
        if "pages" in op.get("tags", []) or op["operationId"] in DOCS_PAGES:
            continue
        answer = op["responses"].get("400")
        if answer is None or "`invalid_query`" not in _resolve(answer, "responses")["description"]:
            missing.append(f"{method.upper()} {path}")
    assert missing == []
