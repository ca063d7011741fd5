"""Addresses no route serves, and the page addresses that name nothing: a path holding '//' is
one of them (404, no redirect to the path with its slashes merged), and both variants of a page's
not-found answer (HTML for a browser, problem+json for any other client) say they vary on Accept.
"""

from __future__ import annotations

import pytest
from support.problems import problem

HTML = {"Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"}


def _sent(client, method: str, path: str, **kw):
    """A request whose path is ``path`` as a server hands it over (PATH_INFO): the test client
    would read '//games' as an address on the host 'games', where a server keeps the path as sent."""
    return client.open("/", method=method, environ_overrides={"PATH_INFO": path, "RAW_URI": path}, **kw)


@pytest.mark.parametrize("method,path", [
    ("GET", "/games//events"), ("GET", "/games//state"), ("POST", "/games//moves"), ("GET", "/bots//x"),
    ("GET", "//games"), ("GET", "//"), ("POST", "//games"), ("GET", "/replay//x"), ("GET", "/games/"),
])
def test_a_path_holding_a_double_slash_is_an_address_no_route_serves(api_app, method, path):
    client = api_app.test_client()
    resp = _sent(client, method, path, json={} if method == "POST" else None)
    assert "Location" not in resp.headers
    problem(resp, 404, "not_found")
    # a browser following such a link gets the site's not-found page, as for any unknown address
    if method == "GET":
        page = _sent(client, method, path, headers=HTML)
        assert (page.status_code, page.mimetype) == (404, "text/html")
        assert "Location" not in page.headers


@pytest.mark.parametrize("path", ["/replay/nosuchgame", "/play/x", "/watch/bad!id", "/match/nosuchmatch",
                                  "/no/such/page"])
def test_both_variants_of_a_page_not_found_vary_on_accept(api, api_app, path):
    # (the spec's PageNotFound states the header, which the validating client checks)
    as_problem = api.get(path)
    problem(as_problem, 404, "not_found")
    as_page = api_app.test_client().get(path, headers=HTML)
    assert (as_page.status_code, as_page.mimetype) == (404, "text/html")
    for resp in (as_problem, as_page):
        assert "Accept" in [v.strip() for v in resp.headers.get("Vary", "").split(",")], (path, resp.mimetype)
