"""The pages and their assets are served, with the media types openapi.yaml gives, and nothing else is."""

from __future__ import annotations

import re

import pytest

from support.apiclient import ValidatingClient, load_openapi, make_app

PAGES = ["/", "/play/AAAAAAAAAAAAAAAA", "/watch/AAAAAAAAAAAAAAAA", "/replay/AAAAAAAAAAAAAAAA", "/match/AAAAAAAAAAAAAAAA"]


@pytest.fixture
def api(redis_url, key_prefix):
    return ValidatingClient(make_app(redis_url, key_prefix), load_openapi())


def test_every_page_and_every_asset_it_names_is_served(api):
    for page in PAGES:
        resp = api.get(page)
        assert resp.status_code == 200 and resp.mimetype == "text/html", page
        html = resp.get_data(as_text=True)
        assert "http://" not in html and "https://" not in html  # nothing is fetched from elsewhere
        for asset in re.findall(r'(?:src|href)="(/web/[^"]+)"', html):
            got = api.get(asset)
            assert got.status_code == 200 and got.get_data(), asset
            assert got.mimetype == {"js": "text/javascript", "css": "text/css", "svg": "image/svg+xml"}[asset.rsplit(".", 1)[1]]


def test_every_module_a_script_imports_is_served(api):
    seen, todo = set(), ["/web/lobby.js", "/web/table.js", "/web/replay.js", "/web/match.js"]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        resp = api.get(path)
        assert resp.status_code == 200, path
        for name in re.findall(r'from "\./([a-z0-9_-]+\.js)"', resp.get_data(as_text=True)):
            todo.append(f"/web/{name}")
    assert {"/web/api.js", "/web/cards.js", "/web/ui.js", "/web/seats.js"} <= seen


@pytest.mark.parametrize("path", ["/web/nothing.js", "/web/lobby.html", "/web/icon.png", "/web/..%2Fdocs.html",
                                  "/play/short", "/watch/not-sixteen-chars", "/replay/AAAAAAAAAAAAAAA!",
                                  "/match/short"])
def test_unknown_assets_and_malformed_game_ids_are_404_problems(api, path):
    resp = api.get(path)
    assert resp.status_code == 404
    assert resp.mimetype == "application/problem+json"
    assert resp.get_json()["code"] == "not_found"


def test_the_pages_run_only_their_own_files_and_cannot_be_framed(api):
    for page in PAGES:
        csp = api.get(page).headers["Content-Security-Policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        html = api.get(page).get_data(as_text=True)
        # so the pages hold no inline script or style for the policy to refuse
        assert "<script>" not in html and "<style" not in html and " style=" not in html
