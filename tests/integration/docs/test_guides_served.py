"""The guides (service/docs/*.md) are served as pages, so a server running offline has its manual."""

from __future__ import annotations

import re

from support.servers import REPO

from service.api.guides import GUIDES

DOCS = REPO / "service" / "docs"


def _html(resp) -> str:
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.mimetype == "text/html"
    return resp.get_data(as_text=True)


def test_the_list_of_guides_links_every_guide_and_each_renders_from_its_markdown(api):
    index = _html(api.get("/guides"))
    linked = re.findall(r'href="/guides/([A-Z]+)"', index)
    assert linked == list(GUIDES)
    assert sorted(GUIDES) == sorted(p.stem for p in DOCS.glob("*.md")), "a guide is missing from the list, or a file"
    for name in GUIDES:
        page = _html(api.get(f"/guides/{name}"))
        first_heading = next(line for line in (DOCS / f"{name}.md").read_text().splitlines() if line.startswith("# "))
        title = first_heading[2:].replace("&", "&amp;").replace("<", "&lt;")
        assert re.search(r"<h1[^>]*>" + re.escape(title).replace("\\`", "(?:<code>|</code>|`)") , page) or \
            title.split()[0] in page, f"{name}: its first heading is not on the page"


def test_links_between_guides_point_at_the_served_pages_and_none_at_a_markdown_file(api):
    for name in GUIDES:
        page = _html(api.get(f"/guides/{name}"))
        assert not re.search(r'href="[^"]*\.md(#[^"]*)?"', page), f"{name} still links a .md file"
        for target in set(re.findall(r'href="(/guides/[^"#]*)', page)) | set(re.findall(r'src="(/guides/[^"]*)"', page)):
            assert api.get(target).status_code == 200, f"{name} links {target}, which the server does not answer"


def test_a_guides_picture_is_the_file_in_the_repository(api):
    resp = api.get("/guides/img/table.png")
    assert resp.status_code == 200 and resp.mimetype == "image/png"
    assert resp.get_data() == (DOCS / "img" / "table.png").read_bytes()


def test_an_unknown_guide_or_picture_is_404_not_found(api):
    for path in ("/guides/NOPE", "/guides/rules", "/guides/img/nope.png"):
        resp = api.get(path)
        assert resp.status_code == 404 and resp.get_json()["code"] == "not_found", path


def test_the_lobby_and_the_api_docs_link_the_guides(api):
    assert 'href="/guides"' in _html(api.get("/"))
    assert 'href="/guides"' in _html(api.get("/docs"))
