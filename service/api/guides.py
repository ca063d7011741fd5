"""The guides (``service/docs/*.md``) as pages, so that a server running offline has its own manual.

Each guide is rendered from the same Markdown file the repository shows, with Python-Markdown.
Links between guides are rewritten to these pages; a link to another file of the repository (a
test, the spec) points at the server's own copy where it has one, else it is left as plain text.
"""

from __future__ import annotations

import functools
import html
import importlib.resources
import re
from pathlib import Path

import markdown
from flask import Blueprint, Response

from service.api.pages import PAGE_HEADERS, page_shell
from service.api.problems import ApiError

bp = Blueprint("guides", __name__)

#: the guides, in the order the index lists them: (title, what it covers)
GUIDES = {
    "PLAY": ("Play in the browser", "the lobby, the table, box gin's three roles, replay and audit"),
    "API": ("API tour", "for client authors: a game from creation to its end"),
    "BOTS": ("Write a bot", "the smallest bot, then the arena: accounts, events, challenges, matches"),
    "TOURNAMENTS": ("Tournaments", "round-robin and Swiss of bots and policies: pairings, tie-breaks, ratings"),
    "RULES": ("Rules", "box gin and gin rami, as the server plays them"),
    "FAIRNESS": ("Fairness", "how each deal is committed to, and how to check it"),
    "ANALYSIS": ("Decision analysis", "every decision of a finished game rated by the points it gave away"),
    "OPENSPIEL": ("OpenSpiel records", "a gin-rami game as OpenSpiel gin_rummy records, and back"),
    "OPERATE": ("Operate", "settings, production, Redis, workers, Docker, failures"),
    "SECURITY": ("Security", "what the server promises, and how each promise is tested"),
    "ARCHITECTURE": ("Architecture", "the rooms of the code, and what each may import"),
    "TESTING": ("Testing", "the tiers, the fast loop, CI"),
    "BENCHMARKS": ("Benchmarks", "the current figures, and the command that prints each"),
}
_IMAGE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}\.png$")
#: a relative link of a guide: a guide's file (``API.md#x``), an image, or another file of the repository
_LINK = re.compile(r'(href|src)="(?![a-z]+:|/|#)([^"]*)"')


def _docs() -> Path:
    return Path(str(importlib.resources.files("service") / "docs"))


def _served(target: str) -> str | None:
    """Where this server shows the file a guide links to (``target``, relative to service/docs), or None."""
    path, _, anchor = target.partition("#")
    anchor = f"#{anchor}" if anchor else ""
    name = Path(path).name
    if path.endswith(".md") and Path(path).stem in GUIDES and "/" not in path.removeprefix("./"):
        return f"/guides/{Path(path).stem}{anchor}"
    if path.startswith("img/") and _IMAGE.match(name):
        return f"/guides/img/{name}"
    if name == "openapi.yaml":
        return "/openapi.yaml"
    if name == "README.md":
        return f"/guides{anchor}"
    return None


def _rewrite_links(body: str) -> str:
    def swap(match: re.Match) -> str:
        served = _served(html.unescape(match.group(2)))
        # a file the server does not hold: the link goes, its text stays (a data-file names it)
        return f'{match.group(1)}="{html.escape(served)}"' if served else f'data-file="{match.group(2)}"'
    return _LINK.sub(swap, body)


@functools.lru_cache(maxsize=len(GUIDES))
def render(name: str) -> bytes:
    """The whole HTML page of guide ``name``."""
    text = (_docs() / f"{name}.md").read_text(encoding="utf-8")
    body = markdown.markdown(text, extensions=["tables", "fenced_code", "toc"], output_format="html")
    main = (f'  <header class="top"><h1>ginbox guides</h1><a href="/guides">All guides</a> '
            f'<a href="/">Lobby</a> <a href="/docs">API</a></header>\n'
            f'  <main id="main" class="guide">\n{_rewrite_links(body)}\n  </main>\n')
    return page_shell(f"{name.lower()} guide", "", main)


@bp.get("/guides")
def guides_index():
    """The list of guides."""
    items = "".join(f'      <li><a href="/guides/{name}">{html.escape(title)}</a>: {html.escape(what)}</li>\n'
                    for name, (title, what) in GUIDES.items())
    main = (f'  <header class="top"><h1>ginbox guides</h1><a href="/">Lobby</a> <a href="/docs">API</a></header>\n'
            f'  <main id="main" class="guide">\n    <p>One guide for each reader and task.</p>\n'
            f'    <ul id="guides">\n{items}    </ul>\n  </main>\n')
    return _answer(page_shell("guides", "", main), "text/html")


@bp.get("/guides/<name>")
def guide_page(name: str):
    """One guide, rendered from its Markdown."""
    if name not in GUIDES or not (_docs() / f"{name}.md").is_file():
        raise ApiError(404, "not_found", f"no guide {name!r}: the guides are {', '.join(GUIDES)}")
    return _answer(render(name), "text/html")


@bp.get("/guides/img/<image>")
def guide_image(image: str):
    """A picture the guides show."""
    path = _docs() / "img" / image
    if not _IMAGE.match(image) or not path.is_file():
        raise ApiError(404, "not_found", f"no guide image {image!r}")
    return _answer(path.read_bytes(), "image/png")


def _answer(body: bytes, media: str) -> Response:
    resp = Response(body, mimetype=media)
    resp.headers["Cache-Control"] = "public, max-age=300"
    resp.headers.update(PAGE_HEADERS)
    return resp

