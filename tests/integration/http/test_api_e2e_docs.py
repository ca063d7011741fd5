"""GET /docs works offline: every script and style sheet it names is served by the app itself."""

from __future__ import annotations

import re
from urllib.parse import urljoin


def test_the_docs_page_loads_only_assets_the_app_serves(api):
    page = api.get("/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    refs = re.findall(r'<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"', html)
    assert refs, "the page names its scripts and styles"
    for ref in refs:
        assert not re.match(r"^(?:[a-z]+:)?//", ref), f"{ref} is not served locally (no CDN)"
        asset = api.get(urljoin("/docs", ref))
        assert asset.status_code == 200, ref
        assert asset.mimetype in ("text/javascript", "application/javascript", "text/css"), (ref, asset.mimetype)
    assert api.get("/docs/no-such-asset.js").status_code == 404
